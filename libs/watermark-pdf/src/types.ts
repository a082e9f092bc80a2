import type { DetectionEvidence, DetectionStatus, WatermarkKey } from '@cp/watermark';

export interface PdfEmbedOptions {
  key: WatermarkKey;
  /** Refuse documents with more pages (default 500). */
  maxPages?: number;
  /** Abandons the work (e.g. the job's deadline passed): the renderer's running call is stopped. */
  signal?: AbortSignal;
}

export interface PdfExtractOptions {
  key: WatermarkKey;
  /** Refuse original documents with more pages (default 500). */
  maxPages?: number;
  /** Abandons the work (e.g. the job's deadline passed): the renderer's running call is stopped. */
  signal?: AbortSignal;
}

export interface PdfExtractResult {
  status: DetectionStatus;
  payload?: bigint;
  /** 0..1, the image engine's confidence of the best attempt. */
  confidence: number;
  /** 1-based page of the ORIGINAL document whose mark was decoded (when detected). */
  page?: number;
  /** True when the inspected file was an image (a capture of a page), false for a PDF. */
  capturedFromImage: boolean;
  /**
   * What a detected / inconclusive result rests on: the image engine's evidence of the page read, with the chance
   * bound multiplied by the number of page extractions this document took (each one a separate chance).
   */
  evidence?: DetectionEvidence & { page: number };
}
