// Which embedded font draws each character of the customer's text, asked of the fonts themselves, and which
// characters none draws (printed as their code point instead of an empty box).
import { codePointName, fontDraws, glyphRuns } from './report-glyphs';

const KR_FIRST = ['NotoSansKR', 'NotoSansJP'] as const;
const JP_FIRST = ['NotoSansJP', 'NotoSansKR'] as const;

describe('report glyphs', () => {
  it('asks the font files: Latin and CJK in both, Hangul only in the Korean font, 𠀋 only in the Japanese, emoji in neither', () => {
    for (const font of KR_FIRST) {
      for (const character of ['a', 'é', '世', 'あ', ' ']) expect(fontDraws(font, character.codePointAt(0) ?? 0)).toBe(true);
      expect(fontDraws(font, 0x1f389)).toBe(false);
    }
    expect(fontDraws('NotoSansKR', 0xd55c)).toBe(true);
    expect(fontDraws('NotoSansJP', 0xd55c)).toBe(false);
    expect(fontDraws('NotoSansKR', 0x2000b)).toBe(false);
    expect(fontDraws('NotoSansJP', 0x2000b)).toBe(true);
  });

  it('counts invisible characters (joiners, variation selectors, soft hyphen) as not drawn, whatever the font maps', () => {
    for (const codePoint of [0x200d, 0xfe0f, 0x00ad, 0x202e]) {
      for (const font of KR_FIRST) expect(fontDraws(font, codePoint)).toBe(false);
    }
  });

  it('names a code point with at least four upper-case hex digits', () => {
    expect(codePointName(0x1f389)).toBe('U+1F389');
    expect(codePointName(0xad)).toBe('U+00AD');
    expect(codePointName(0x2000b)).toBe('U+2000B');
  });

  it('leaves ordinary Latin, Korean and Japanese text in one run of its font', () => {
    expect(glyphRuns('Hello, world.png', KR_FIRST)).toEqual([{ text: 'Hello, world.png', font: 'NotoSansKR' }]);
    expect(glyphRuns('leak: 홍길동', KR_FIRST)).toEqual([{ text: 'leak: 홍길동', font: 'NotoSansKR' }]);
    expect(glyphRuns('流出コピー 鷗外.png', JP_FIRST)).toEqual([{ text: '流出コピー 鷗外.png', font: 'NotoSansJP' }]);
  });

  it('makes an emoji (a surrogate pair) one undrawable character, not two', () => {
    expect(glyphRuns('héllo 世界 🎉', KR_FIRST)).toEqual([{ text: 'héllo 世界 ', font: 'NotoSansKR' }, { codePoint: 0x1f389 }]);
    expect(glyphRuns('héllo 世界 🎉', JP_FIRST)).toEqual([{ text: 'héllo 世界 ', font: 'NotoSansJP' }, { codePoint: 0x1f389 }]);
  });

  it('splits a ZWJ sequence into its code points, the joiner included', () => {
    expect(glyphRuns('dev 👩‍💻!', KR_FIRST)).toEqual([{ text: 'dev ', font: 'NotoSansKR' }, { codePoint: 0x1f469 }, { codePoint: 0x200d }, { codePoint: 0x1f4bb }, { text: '!', font: 'NotoSansKR' }]);
  });

  it('draws a character the first font lacks with the other embedded font', () => {
    expect(glyphRuns('name 𠀋.png', KR_FIRST)).toEqual([
      { text: 'name ', font: 'NotoSansKR' },
      { text: '𠀋', font: 'NotoSansJP' },
      { text: '.png', font: 'NotoSansKR' },
    ]);
  });

  it('keeps a combining mark with its base, and a lone surrogate as its own code point', () => {
    expect(glyphRuns('he\u0301llo', KR_FIRST)).toEqual([{ text: 'he\u0301llo', font: 'NotoSansKR' }]);
    expect(glyphRuns('a\ud800b', KR_FIRST)).toEqual([{ text: 'a', font: 'NotoSansKR' }, { codePoint: 0xd800 }, { text: 'b', font: 'NotoSansKR' }]);
  });
});
