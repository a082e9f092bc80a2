import { clearReferenceCache } from './extract';
import { closePdfRenderer as closeWorker } from './render';

export { embedPdf, MARK_DPI, MAX_PAGE_PIXELS, OVERLAY_DOWNSAMPLE, TARGET_PSNR_DB } from './embed';
export { extractPdf, MAX_CAPTURE_PIXELS, MAX_ENGINE_CALLS } from './extract';
export { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
export { pdfPageTexts, renderPdfPages } from './render';
export type { PageImage } from './render';
export type { PdfEmbedOptions, PdfExtractOptions, PdfExtractResult } from './types';
export { DEFAULT_MAX_PAGES } from './validate';
export { DEFAULT_INFLATION_LIMITS } from './inflation';
export type { InflationLimits } from './inflation';
export { configurePdfResources, DEFAULT_PDF_RESOURCE_LIMITS, pdfResourceLimits } from './limits';
export type { PdfResourceLimits } from './limits';
export { isRendererFailure } from './render';

/** Stops the pdf.js worker thread and drops cached original renderings (both also go away by themselves). */
export async function closePdfRenderer(): Promise<void> {
  clearReferenceCache();
  await closeWorker();
}
