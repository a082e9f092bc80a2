export enum PdfWatermarkErrorCode {
  /** The input does not start like a PDF file. */
  NOT_PDF = 'NOT_PDF',
  /** The file has an /Encrypt dictionary (password or permissions protection). */
  ENCRYPTED = 'ENCRYPTED',
  /** Truncated, unparsable, or a page that cannot be rendered. */
  DAMAGED = 'DAMAGED',
  /** More pages than `maxPages` (default 500). */
  TOO_MANY_PAGES = 'TOO_MANY_PAGES',
  /** The image engine refused a page rendering (should not happen with the default pixel cap). */
  PAGE_NOT_MARKABLE = 'PAGE_NOT_MARKABLE',
  /**
   * The file needs more than its share to open: streams that inflate past the configured budget, more objects or bytes of
   * names and strings than pdf-lib may build, a JPEG 2000 image pdf.js would decode at full size past its cap, or pages
   * whose rendering runs the renderer's heap out or past its deadline. Hostile or broken input, never retried.
   */
  RESOURCE_LIMIT = 'RESOURCE_LIMIT',
}

export class PdfWatermarkError extends Error {
  constructor(
    readonly code: PdfWatermarkErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PdfWatermarkError';
  }
}
