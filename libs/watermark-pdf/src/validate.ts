import { PDFDocument } from 'pdf-lib';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
import { loadWithinBudget } from './bounded-parse';
import { checkInflation } from './inflation';
import { checkJpxImages } from './jpx-check';
import { pdfResourceLimits } from './limits';

export const DEFAULT_MAX_PAGES = 500;

const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/** True when the buffer starts like a PDF (the header may follow up to 1 KB of junk, as viewers accept). */
export function looksLikePdf(buf: Uint8Array): boolean {
  return latin1(buf.subarray(0, 1024)).includes('%PDF-');
}

/**
 * Structural checks that catch truncated files before any parser tries to "repair" them:
 * a `startxref` near the end pointing at an xref table or an xref stream object, and `%%EOF` after it.
 */
function checkTrailer(buf: Uint8Array): void {
  const tailStart = Math.max(0, buf.length - 4096);
  const tail = latin1(buf.subarray(tailStart));
  const sx = tail.lastIndexOf('startxref');
  if (sx < 0 || tail.indexOf('%%EOF', sx) < 0) {
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'PDF is truncated (no startxref / %%EOF at the end)');
  }
  const m = /^startxref\s+(\d+)/.exec(tail.slice(sx));
  const offset = m ? Number(m[1]) : -1;
  if (offset < 0 || offset >= buf.length) {
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'PDF startxref offset is out of range');
  }
  const at = latin1(buf.subarray(offset, Math.min(buf.length, offset + 32)));
  if (!/^\s*(xref|\d+\s+\d+\s+obj)/.test(at)) {
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'PDF startxref does not point at a cross-reference section');
  }
}

/**
 * Parses the PDF with pdf-lib (metadata left untouched) after the structural, inflation, encryption and
 * page-count checks, then reads the size of its JPEG 2000 images (jpx-check.ts). The inflation bound comes first (the whole file's streams, as pdf.js would decode them), and
 * the streams pdf-lib itself decodes while it parses are held to the same budget as it meets them (bounded-parse.ts).
 */
export async function loadChecked(pdf: Uint8Array, maxPages: number = DEFAULT_MAX_PAGES): Promise<PDFDocument> {
  if (!looksLikePdf(pdf)) throw new PdfWatermarkError(PdfWatermarkErrorCode.NOT_PDF, 'input is not a PDF');
  checkTrailer(pdf);
  const { inflation: limits, parse } = pdfResourceLimits();
  await checkInflation(pdf, limits);
  let doc: PDFDocument;
  try {
    doc = await loadWithinBudget(pdf, limits, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: true }, parse);
  } catch (err) {
    if (err instanceof PdfWatermarkError) throw err;
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, `PDF cannot be parsed: ${(err as Error).message}`);
  }
  if (doc.isEncrypted) throw new PdfWatermarkError(PdfWatermarkErrorCode.ENCRYPTED, 'PDF is encrypted');
  let count: number;
  try {
    count = doc.getPageCount();
  } catch (err) {
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, `PDF page tree is broken: ${(err as Error).message}`);
  }
  if (count === 0) throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'PDF has no pages');
  if (count > maxPages) {
    throw new PdfWatermarkError(PdfWatermarkErrorCode.TOO_MANY_PAGES, `PDF has ${count} pages (limit ${maxPages})`);
  }
  checkJpxImages(doc, pdf.length, limits);
  return doc;
}

/**
 * pdf-lib's document of a file the renderer's process already accepted (`checkedPageCount` of render.ts), for the
 * changes an embed writes: parsed again here, within the same budgets (a guard, not the check), without the checks
 * repeated. What the check refuses never reaches this parse, so it costs the service what an accepted file costs.
 */
export async function parseAccepted(pdf: Uint8Array): Promise<PDFDocument> {
  const { inflation: limits, parse } = pdfResourceLimits();
  try {
    return await loadWithinBudget(pdf, limits, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: true }, parse);
  } catch (err) {
    if (err instanceof PdfWatermarkError) throw err;
    throw new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, `PDF cannot be parsed: ${(err as Error).message}`);
  }
}
