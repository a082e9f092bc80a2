import { hasDuplicateMember, strictlyDecoded } from './json-body.parser';

const isStrictlyDecodable = (body: Uint8Array, charset: string): boolean => strictlyDecoded(body, charset) !== null;

const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));
const utf16 = (text: string, order: 'le' | 'be'): Buffer => {
  const le = Buffer.from(text, 'utf16le');
  return order === 'le' ? le : le.swap16();
};

describe('isStrictlyDecodable', () => {
  it.each([
    ['ASCII', bytes('{"a":"b"}')],
    ['Korean and an emoji (4-byte sequence)', bytes('{"a":"한국어 😀"}')],
    ['a UTF-8 BOM', bytes([0xef, 0xbb, 0xbf], '{}')],
    ['U+FFFD sent as such (it is a valid character)', bytes('{"a":"\ufffd"}')],
    ['U+10FFFF, the last code point', bytes([0xf4, 0x8f, 0xbf, 0xbf])],
    ['nothing', bytes()],
  ])('UTF-8: accepts %s', (_name, body) => {
    expect(isStrictlyDecodable(body, 'utf-8')).toBe(true);
  });

  it.each([
    ['0xFF 0xFE (the black-box request)', bytes('{"text":"a', [0xff, 0xfe], 'b"}')],
    ['a truncated 3-byte sequence', bytes('{"a":"', [0xe2, 0x82], '"}')],
    ['a sequence cut by the end of the body', bytes('{"a":1}', [0xf0, 0x9f, 0x98])],
    ['an overlong "/"', bytes([0xc0, 0xaf])],
    ['an overlong NUL', bytes([0xc0, 0x80])],
    ['an encoded surrogate (CESU-8 / WTF-8)', bytes([0xed, 0xa0, 0x80])],
    ['beyond U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80])],
    ['a stray continuation byte', bytes([0x80])],
    ['a Latin-1 é', bytes([0x22, 0xe9, 0x22])],
  ])('UTF-8: refuses %s', (_name, body) => {
    expect(isStrictlyDecodable(body, 'utf-8')).toBe(false);
  });

  it('UTF-16: either order, with or without a BOM; an odd length or a lone surrogate is refused', () => {
    const text = '{"a":"한 😀"}';
    expect(isStrictlyDecodable(utf16(text, 'le'), 'utf-16le')).toBe(true);
    expect(isStrictlyDecodable(utf16(text, 'be'), 'utf-16be')).toBe(true);
    expect(isStrictlyDecodable(Buffer.concat([bytes([0xff, 0xfe]), utf16(text, 'le')]), 'utf-16')).toBe(true);
    expect(isStrictlyDecodable(Buffer.concat([bytes([0xfe, 0xff]), utf16(text, 'be')]), 'utf-16')).toBe(true);
    expect(isStrictlyDecodable(utf16(text, 'be'), 'utf-16')).toBe(true);
    expect(isStrictlyDecodable(Buffer.concat([utf16(text, 'le'), bytes([0x20])]), 'utf-16le')).toBe(false);
    expect(isStrictlyDecodable(Buffer.concat([utf16(text, 'le'), bytes([0x20])]), 'utf-16')).toBe(false);
    expect(isStrictlyDecodable(Buffer.concat([utf16('{"a":"', 'le'), bytes([0x00, 0xd8]), utf16('"}', 'le')]), 'utf-16le')).toBe(false);
    // The BOM names the order: DC 00 is U+00DC little-endian but a lone U+DC00 big-endian.
    expect(isStrictlyDecodable(Buffer.concat([utf16('a', 'le'), bytes([0xdc, 0x00])]), 'utf-16')).toBe(true);
    expect(isStrictlyDecodable(Buffer.concat([bytes([0xfe, 0xff]), utf16('a', 'be'), bytes([0xdc, 0x00])]), 'utf-16')).toBe(false);
  });

  it.each(['utf-32', 'utf-32le', 'utf-32be', 'utf-7', 'utf-7-imap', 'utf-9'])('refuses the charset %s whatever the bytes', (charset) => {
    expect(isStrictlyDecodable(bytes('{}'), charset)).toBe(false);
  });
});

describe('hasDuplicateMember', () => {
  it.each([
    ['a repeated name', '{"a":1,"a":2}'],
    ['the same name escaped', '{"a":1,"\\u0061":2}'],
    ['in a nested object', '{"files":[{"fileName":"x","fileName":"y"}]}'],
    ['after a nested object', '{"a":{"b":1},"c":[1,{"d":2}],"a":3}'],
    ['with whitespace around', '{ "a" : 1 ,\n "a" : 1 }'],
  ])('finds %s', (_name, text) => {
    expect(hasDuplicateMember(text)).toBe(true);
  });

  it.each([
    ['distinct names', '{"a":1,"b":2}'],
    ['one name in sibling objects', '[{"a":1},{"a":2}]'],
    ['one name at two depths', '{"a":{"a":{"a":1}}}'],
    ['a value equal to a name', '{"a":"a","b":"a"}'],
    ['strings in an array', '{"a":["a","a"]}'],
    ['names differing in case', '{"a":1,"A":2}'],
    ['not an object', '"a"'],
  ])('accepts %s', (_name, text) => {
    expect(hasDuplicateMember(text)).toBe(false);
  });

  it('scans a deeply nested body without recursion', () => {
    const depth = 200_000;
    expect(hasDuplicateMember(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)).toBe(false);
    expect(hasDuplicateMember(`${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}`)).toBe(true);
  });
});
