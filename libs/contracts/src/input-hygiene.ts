/**
 * Input hygiene shared by every entry point: what no string or id of the public API may carry, whatever
 * field it is in. PostgreSQL rejects NUL in text (a 500 if it gets that far), control characters and lone
 * surrogates are never meaningful in ids, names, texts or URLs of this API, and ids beyond a signed
 * 64-bit integer cannot name a row of a `bigint` column.
 */

/** Deepest JSON nesting a request body may have; the deepest DTO of the API uses 3 levels. */
export const MAX_INPUT_DEPTH = 32;

/**
 * How large a parsed body or query may be before any DTO builds or validates it (attack review). class-transformer
 * and class-validator cost about 25–140 µs a value, more for unknown members: a 1 MiB body of 350,000 empty objects
 * in `files` held the gateway's event loop 8.7 s, one of 100,000 unknown members 14 s, each answered 400 in the end.
 * No request of the API comes near these: its longest arrays have 100 items (`files`, `outputTargets`), its widest
 * object fewer than 10 members, and its largest body (100 files of 10 texts each, with URLs) about 2,400 values.
 */
export const INPUT_LIMITS = { depth: MAX_INPUT_DEPTH, arrayItems: 100, objectMembers: 32, values: 4096 } as const;

export type InputLimits = { [K in keyof typeof INPUT_LIMITS]: number };

/** Largest value of a PostgreSQL `bigint` column. */
export const INT64_MAX = 9_223_372_036_854_775_807n;

/** C0 controls (NUL, tab and newline included), DEL, C1 controls and UTF-16 lone surrogates. */
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnsafeCharacters(value: string): boolean {
  return UNSAFE_CHARACTER.test(value);
}

export type InputProblem = 'too-deep' | 'too-large' | 'unsafe-characters';

/**
 * Walks a parsed body or query (iteratively: a hostile depth must not exhaust the stack) and names the
 * first problem: nesting deeper than `limits.depth`; an array longer than `limits.arrayItems`, an object with more
 * members than `limits.objectMembers` or more than `limits.values` values in all (objects, arrays, keys' values
 * and scalars counted alike); a key or string value with an unsafe character.
 */
export function findInputProblem(input: unknown, limits: InputLimits = INPUT_LIMITS): InputProblem | null {
  const pending: { value: unknown; depth: number }[] = [{ value: input, depth: 0 }];
  let values = 0;
  while (pending.length > 0) {
    const { value, depth } = pending.pop() as { value: unknown; depth: number };
    values += 1;
    if (values > limits.values) {
      return 'too-large';
    }
    if (typeof value === 'string') {
      if (hasUnsafeCharacters(value)) {
        return 'unsafe-characters';
      }
      continue;
    }
    if (value === null || typeof value !== 'object') {
      continue;
    }
    if (depth >= limits.depth) {
      return 'too-deep';
    }
    if (Array.isArray(value)) {
      if (value.length > limits.arrayItems) {
        return 'too-large';
      }
      for (const item of value as unknown[]) {
        pending.push({ value: item, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > limits.objectMembers) {
      return 'too-large';
    }
    for (const key of keys) {
      if (hasUnsafeCharacters(key)) {
        return 'unsafe-characters';
      }
      pending.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return null;
}

/** Every run of digits in an id (`123`, or `123-4` for an output file) fits a signed 64-bit column. */
export function digitsFitInt64(value: string): boolean {
  return (value.match(/[0-9]+/g) ?? []).every((digits) => BigInt(digits) <= INT64_MAX);
}
