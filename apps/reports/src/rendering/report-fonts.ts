import { ReportLocale } from '@cp/contracts';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** pdfmake font family names; both are Noto Sans (SIL OFL 1.1), embedded as subsets in every report. */
export type ReportFont = 'NotoSansKR' | 'NotoSansJP';

function fontFile(pkg: string, weight: string, file: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), weight, file);
}

/** TTF files from npm (@expo-google-fonts/noto-sans-kr, @expo-google-fonts/noto-sans-jp). */
export const REPORT_FONT_FILES: Record<ReportFont, { normal: string; bold: string }> = {
  NotoSansKR: {
    normal: fontFile('@expo-google-fonts/noto-sans-kr', '400Regular', 'NotoSansKR_400Regular.ttf'),
    bold: fontFile('@expo-google-fonts/noto-sans-kr', '700Bold', 'NotoSansKR_700Bold.ttf'),
  },
  NotoSansJP: {
    normal: fontFile('@expo-google-fonts/noto-sans-jp', '400Regular', 'NotoSansJP_400Regular.ttf'),
    bold: fontFile('@expo-google-fonts/noto-sans-jp', '700Bold', 'NotoSansJP_700Bold.ttf'),
  },
};

/** pdfmake's font dictionary (no italics in the layout: the italic slots reuse the upright faces). */
export function pdfmakeFonts(): Record<ReportFont, { normal: string; bold: string; italics: string; bolditalics: string }> {
  const entry = (font: ReportFont) => ({
    normal: REPORT_FONT_FILES[font].normal,
    bold: REPORT_FONT_FILES[font].bold,
    italics: REPORT_FONT_FILES[font].normal,
    bolditalics: REPORT_FONT_FILES[font].bold,
  });
  return { NotoSansKR: entry('NotoSansKR'), NotoSansJP: entry('NotoSansJP') };
}

export function missingFontFiles(): string[] {
  return Object.values(REPORT_FONT_FILES)
    .flatMap((faces) => [faces.normal, faces.bold])
    .filter((file) => !existsSync(file));
}

/** Japanese uses the JP design (kanji forms, full kanji coverage); Korean and English use the KR one. */
export function localeFont(locale: ReportLocale): ReportFont {
  return locale === 'ja-JP' ? 'NotoSansJP' : 'NotoSansKR';
}

const HANGUL = /[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]/;

/**
 * Font for text the customer chose (file names, watermark text): Noto Sans JP has no Hangul, so Korean text
 * in a Japanese report switches to Noto Sans KR instead of showing empty boxes.
 */
export function fontForText(text: string, locale: ReportLocale): ReportFont {
  return HANGUL.test(text) ? 'NotoSansKR' : localeFont(locale);
}

/**
 * Fonts that may draw the customer's text, in order: the text's own font, then the other embedded one for what it
 * lacks (e.g. kanji outside the Korean font, such as 𠀋, in an English or Korean report).
 */
export function fontsForText(text: string, locale: ReportLocale): ReportFont[] {
  const first = fontForText(text, locale);
  return [first, ...(Object.keys(REPORT_FONT_FILES) as ReportFont[]).filter((font) => font !== first)];
}
