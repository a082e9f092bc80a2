import { REPORT_FONT_FILES, ReportFont } from './report-fonts';

/** The one question asked of a fontkit font (fontkit ships no types). */
interface GlyphLookup {
  hasGlyphForCodePoint(codePoint: number): boolean;
}

// fontkit is the engine pdfkit (under pdfmake) draws with: its answer for a code point is what the PDF will show.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fontkit = require('fontkit') as { openSync(file: string): GlyphLookup | { fonts: GlyphLookup[] } };

// A reader cannot see these even where a font maps them (joiners, variation selectors, bidi and other format marks),
// so a report would silently drop them from the text it states.
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;
const MARK = /^\p{M}$/u;

const faces = new Map<ReportFont, GlyphLookup[]>();
const answers = new Map<ReportFont, Map<number, boolean>>();

function facesOf(font: ReportFont): GlyphLookup[] {
  let loaded = faces.get(font);
  if (!loaded) {
    loaded = [REPORT_FONT_FILES[font].normal, REPORT_FONT_FILES[font].bold].map((file) => {
      const opened = fontkit.openSync(file);
      return 'fonts' in opened ? opened.fonts[0] : opened;
    });
    faces.set(font, loaded);
  }
  return loaded;
}

/**
 * Whether `font` draws `codePoint` visibly. Both faces must have it: bold comes from styles as well as from the
 * caller, so the face actually used is not always known here.
 */
export function fontDraws(font: ReportFont, codePoint: number): boolean {
  let known = answers.get(font);
  if (!known) {
    known = new Map();
    answers.set(font, known);
  }
  let answer = known.get(codePoint);
  if (answer === undefined) {
    answer = !INVISIBLE.test(String.fromCodePoint(codePoint)) && facesOf(font).every((face) => face.hasGlyphForCodePoint(codePoint));
    known.set(codePoint, answer);
  }
  return answer;
}

/** `U+1F389`: the exact, font-independent name of a character (at least four hex digits, as Unicode writes it). */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A stretch of text one font draws, or one character none of the fonts draws. */
export type GlyphRun = { text: string; font: ReportFont } | { codePoint: number };

/**
 * Splits `text` by code point (a surrogate pair is one character, a lone surrogate is its own) into runs drawn by
 * the first of `fonts` that has the character; a character none has becomes a run of its own, to be printed as
 * its code point instead of an empty box. A combining mark stays in its base's font when that font has it, so
 * the two are shaped together.
 */
export function glyphRuns(text: string, fonts: readonly ReportFont[]): GlyphRun[] {
  const runs: GlyphRun[] = [];
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    const last = runs.at(-1);
    const lastFont = last && 'font' in last ? last.font : null;
    const candidates = lastFont && MARK.test(character) ? [lastFont, ...fonts] : fonts;
    const font = candidates.find((candidate) => fontDraws(candidate, codePoint));
    if (font === undefined) runs.push({ codePoint });
    else if (last && 'font' in last && last.font === font) last.text += character;
    else runs.push({ text: character, font });
  }
  return runs;
}
