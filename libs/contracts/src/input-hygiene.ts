/**
 * Input hygiene shared by every entry point: what no string or id of the public API may carry, whatever
 * field it is in. PostgreSQL rejects NUL in text (a 500 if it gets that far), control characters and lone
 * surrogates are never meaningful in ids, names, texts or URLs of this API, and ids beyond a signed
 * 64-bit integer cannot name a row of a `bigint` column.
 */

/** Deepest JSON nesting a request body may have; the deepest DTO of the API uses 3 levels. */
export const MAX_INPUT_DEPTH = 32;

/** Largest value of a PostgreSQL `bigint` column. */
export const INT64_MAX = 9_223_372_036_854_775_807n;

/** C0 controls (NUL, tab and newline included), DEL, C1 controls and UTF-16 lone surrogates. */
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnsafeCharacters(value: string): boolean {
  return UNSAFE_CHARACTER.test(value);
}

export type InputProblem = 'too-deep' | 'unsafe-characters';

/**
 * Walks a parsed body or query (iteratively: a hostile depth must not exhaust the stack) and names the
 * first problem: nesting deeper than `maxDepth`, or a key or string value with an unsafe character.
 */
export function findInputProblem(input: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const pending: { value: unknown; depth: number }[] = [{ value: input, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop() as { value: unknown; depth: number };
    if (typeof value === 'string') {
      if (hasUnsafeCharacters(value)) {
        return 'unsafe-characters';
      }
      continue;
    }
    if (value === null || typeof value !== 'object') {
      continue;
    }
    if (depth >= maxDepth) {
      return 'too-deep';
    }
    for (const [key, child] of Object.entries(value)) {
      if (hasUnsafeCharacters(key)) {
        return 'unsafe-characters';
      }
      pending.push({ value: child, depth: depth + 1 });
    }
  }
  return null;
}

/** Every run of digits in an id (`123`, or `123-4` for an output file) fits a signed 64-bit column. */
export function digitsFitInt64(value: string): boolean {
  return (value.match(/[0-9]+/g) ?? []).every((digits) => BigInt(digits) <= INT64_MAX);
}
