import { digitsFitInt64, findInputProblem, hasUnsafeCharacters, MAX_INPUT_DEPTH } from './input-hygiene';

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

  it('keeps ids within a signed 64-bit column', () => {
    expect(digitsFitInt64('9223372036854775807')).toBe(true);
    expect(digitsFitInt64('9223372036854775808')).toBe(false);
    expect(digitsFitInt64('99999999999999999999')).toBe(false);
    expect(digitsFitInt64('00000000000000000001')).toBe(true);
    expect(digitsFitInt64('12-3')).toBe(true);
    expect(digitsFitInt64('12-99999999999999999999')).toBe(false);
  });
});
