import { Injectable, OnModuleInit } from '@nestjs/common';
import type { TDocumentDefinitions } from 'pdfmake/interfaces';
import { missingFontFiles, pdfmakeFonts, REPORT_FONT_FILES } from './report-fonts';

// pdfmake 0.3 in Node: the module is a ready instance (fonts are process-wide).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pdfmake = require('pdfmake') as typeof import('pdfmake');

const FONT_PATHS = new Set(Object.values(REPORT_FONT_FILES).flatMap((faces) => [faces.normal, faces.bold]));

let configured = false;

/** Fonts registered once; documents may not fetch URLs and may read only the bundled font files. */
export function configurePdfmake(): void {
  if (configured) {
    return;
  }
  const missing = missingFontFiles();
  if (missing.length > 0) {
    throw new Error(`report fonts missing: ${missing.join(', ')}`);
  }
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy((file: string) => FONT_PATHS.has(file));
  pdfmake.addFonts(pdfmakeFonts());
  configured = true;
}

export async function renderPdf(definition: TDocumentDefinitions): Promise<Buffer> {
  configurePdfmake();
  return pdfmake.createPdf(definition).getBuffer();
}

/** Checks the fonts at start, so a broken image fails at boot rather than on the first report. */
@Injectable()
export class PdfRenderer implements OnModuleInit {
  onModuleInit(): void {
    configurePdfmake();
  }

  render(definition: TDocumentDefinitions): Promise<Buffer> {
    return renderPdf(definition);
  }
}
