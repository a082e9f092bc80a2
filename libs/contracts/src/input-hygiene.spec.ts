import { digitsFitInt64, findInputProblem, hasUnsafeCharacters, INPUT_LIMITS, MAX_INPUT_DEPTH } from './input-hygiene';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) {
    value = level % 2 === 0 ? { a: value } : [value];
  }
  return value;
}

describe('input hygiene', () => {
  it.each(['a\u0000b', 'tab\there', 'line\nbreak', '\u001b[31m', 'del\u007f', 'c1\u0085', 'lone \ud800 high', 'lone \udc00 low'])('rejects %j', (value) => {
    expect(hasUnsafeCharacters(value)).toBe(true);
    expect(findInputProblem({ watermarkText: value })).toBe('unsafe-characters');
    expect(findInputProblem({ files: [{ texts: ['ok', value] }] })).toBe('unsafe-characters');
    expect(findInputProblem({ [value]: 'key' })).toBe('unsafe-characters');
  });

  it.each(['plain', '한국어 워터마크', 'emoji 😀 pair', '\u202eRTL override', 'quotes "\''])('accepts %j', (value) => {
    expect(hasUnsafeCharacters(value)).toBe(false);
    expect(findInputProblem({ watermarkText: value, n: 1, b: true, z: null })).toBeNull();
  });

  it('bounds nesting without recursion, whatever the depth', () => {
    expect(findInputProblem(nested(MAX_INPUT_DEPTH))).toBeNull();
    expect(findInputProblem(nested(MAX_INPUT_DEPTH + 1))).toBe('too-deep');
    expect(findInputProblem(nested(200_000))).toBe('too-deep');
  });

  // Attack review: every value of a body costs the DTO layer 25–140 µs; a 1 MiB body of empty objects held the
  // gateway's event loop for seconds before its 400. The walk bounds the size of what reaches the DTOs.
  it('bounds the size of a body: array items, object members and values in all', () => {
    const largestEmbed = {
      idempotencyKey: 'k'.repeat(255),
      files: Array.from({ length: 100 }, (_, i) => ({
        fileName: `${i}.png`,
        originalFileUrl: `https://example.com/${i}.png`,
        watermarks: Array.from({ length: 10 }, (_, j) => ({ text: `text ${j}` })),
      })),
    };
    expect(findInputProblem(largestEmbed)).toBeNull();
    expect(findInputProblem({ files: Array.from({ length: INPUT_LIMITS.arrayItems }, () => ({})) })).toBeNull();
    expect(findInputProblem({ files: Array.from({ length: INPUT_LIMITS.arrayItems + 1 }, () => ({})) })).toBe('too-large');
    expect(findInputProblem({ files: Array.from({ length: 350_000 }, () => ({})) })).toBe('too-large');
    const members = (count: number): Record<string, number> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0]));
    expect(findInputProblem(members(INPUT_LIMITS.objectMembers))).toBeNull();
    expect(findInputProblem(members(INPUT_LIMITS.objectMembers + 1))).toBe('too-large');
    expect(findInputProblem({ idempotencyKey: 'k', ...members(100_000) })).toBe('too-large');
    // within every per-container bound, but too many values in all
    const wide = { files: Array.from({ length: 100 }, () => ({ watermarks: Array.from({ length: 100 }, () => ({})) })) };
    expect(findInputProblem(wide)).toBe('too-large');
  });

  it('keeps ids within a signed 64-bit column', () => {
    expect(digitsFitInt64('9223372036854775807')).toBe(true);
    expect(digitsFitInt64('9223372036854775808')).toBe(false);
    expect(digitsFitInt64('99999999999999999999')).toBe(false);
    expect(digitsFitInt64('00000000000000000001')).toBe(true);
    expect(digitsFitInt64('12-3')).toBe(true);
    expect(digitsFitInt64('12-99999999999999999999')).toBe(false);
  });
});
