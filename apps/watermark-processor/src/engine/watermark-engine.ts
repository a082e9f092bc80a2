import { DetectionEvidenceView, DetectionStatus, MediaKind, OrderFailureCode } from '@cp/contracts';
import { ColluderTrace, DetectionEvidence, embedImage, extractImage, WatermarkError, WatermarkErrorCode, WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, configurePdfResources, embedPdf, extractPdf, PdfWatermarkError, PdfWatermarkErrorCode } from '@cp/watermark-pdf';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

export type MarkAlgorithm = 'v2' | 'v3';

export interface Detection {
  status: DetectionStatus;
  payload?: bigint;
  confidence: number;
  method: string;
  /** What a detected / inconclusive result rests on (reports). */
  evidence?: DetectionEvidenceView;
  /** The inspected file is an image of a PDF original's page (no report for those). */
  capturedFromPdf: boolean;
  /** Issue 36: candidate tracing's outcome, when candidates were given and the registered decoding ran (images only). */
  trace?: ColluderTrace;
}

/** The library's evidence names accused payloads (bigints): the extract use case maps them to issuances instead. */
function withoutColluders<E extends DetectionEvidence>(evidence: E | undefined): Omit<E, 'colluders'> | undefined {
  if (!evidence) return undefined;
  const copy: Partial<E> = { ...evidence };
  delete copy.colluders;
  return copy as Omit<E, 'colluders'>;
}

/** The input can never be processed: the output fails with this public code (no retry). */
export class InputRejected extends Error {
  constructor(
    readonly code: OrderFailureCode,
    message: string,
  ) {
    super(message);
  }
}

const REJECTION_CODES: Record<WatermarkErrorCode, OrderFailureCode> = {
  [WatermarkErrorCode.UNSUPPORTED_COLOR_MODE]: OrderFailureCode.WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED,
  [WatermarkErrorCode.UNSUPPORTED_FORMAT]: OrderFailureCode.WATERMARK_FILE_INVALID,
  [WatermarkErrorCode.CORRUPT_IMAGE]: OrderFailureCode.WATERMARK_FILE_INVALID,
  [WatermarkErrorCode.TOO_MANY_PIXELS]: OrderFailureCode.WATERMARK_FILE_TOO_LARGE,
};

const PDF_REJECTION_CODES: Record<PdfWatermarkErrorCode, OrderFailureCode> = {
  [PdfWatermarkErrorCode.NOT_PDF]: OrderFailureCode.WATERMARK_FILE_INVALID,
  [PdfWatermarkErrorCode.DAMAGED]: OrderFailureCode.WATERMARK_FILE_INVALID,
  [PdfWatermarkErrorCode.ENCRYPTED]: OrderFailureCode.WATERMARK_PDF_ENCRYPTED,
  [PdfWatermarkErrorCode.TOO_MANY_PAGES]: OrderFailureCode.WATERMARK_FILE_TOO_LARGE,
  [PdfWatermarkErrorCode.PAGE_NOT_MARKABLE]: OrderFailureCode.WATERMARK_FILE_TOO_LARGE,
  // streams inflating past the budget, a page blowing the renderer's heap: a hostile or broken file
  [PdfWatermarkErrorCode.RESOURCE_LIMIT]: OrderFailureCode.WATERMARK_FILE_INVALID,
};

const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
};

/** The watermark library behind one seam: the processor's use cases and their tests talk to this. */
@Injectable()
export class WatermarkEngine implements OnApplicationShutdown {
  private readonly key: WatermarkKey;
  /** Orders made through the v2 API: another key version, so v3 extract never detects their marks (spec 9.5). */
  private readonly v2Key: WatermarkKey;

  constructor(@Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig) {
    this.key = { secret: config.watermark.secret, version: 'v3' };
    this.v2Key = { secret: config.watermark.secret, version: 'v2' };
    // The PDF library's limits are process-wide (one renderer process); this service sets them once.
    if (config.pdf) configurePdfResources(config.pdf);
  }

  /**
   * Looks for a mark of `algorithm` in `inspected`, registered against `original` (an image, or a PDF
   * whose page the inspected PDF or capture shows). Never throws for bad input: files outside the
   * supported range (an inflation bomb, pages that run the renderer's heap out or past its deadline or the
   * extraction's budget of render time) are `unsupported`, a real failure is `error`. The PDF renderer's own
   * failure (crash, abandoned call) throws: the job's attempt fails.
   */
  async extract(
    inspected: Buffer,
    original: Buffer,
    originalKind: MediaKind,
    algorithm: MarkAlgorithm = 'v3',
    signal?: AbortSignal,
    /** Issue 36: the payloads issued on this original (images: each is tested as a possible contributor). */
    candidates: readonly bigint[] = [],
  ): Promise<Detection> {
    // v3 extract looks for v3 marks only, v2 extract for v2 marks (spec 9.5).
    const key = algorithm === 'v2' ? this.v2Key : this.key;
    if (originalKind === 'pdf') {
      const result = await extractPdf(inspected, original, { key, signal });
      return {
        status: result.status,
        payload: result.payload,
        confidence: result.confidence,
        method: result.capturedFromImage ? 'pdf-page-capture' : 'pdf',
        evidence: withoutColluders(result.evidence),
        capturedFromPdf: result.capturedFromImage,
      };
    }
    const result = await extractImage(inspected, original, { key, maxPixels: this.config.watermark.maxPixels, ...(candidates.length ? { candidates } : {}) });
    const evidence = withoutColluders(result.evidence);
    return {
      status: result.status,
      payload: result.payload,
      confidence: result.confidence,
      method: result.method,
      evidence,
      capturedFromPdf: false,
      ...(result.trace ? { trace: result.trace } : {}),
    };
  }

  /**
   * Marks one file. Input that can never be marked throws InputRejected (a public code, no retry); anything else
   * thrown, such as the PDF renderer's crash (a WorkerFailure), fails this attempt of the job.
   */
  async embed(
    input: Buffer,
    payload: bigint,
    mediaKind: MediaKind,
    algorithm: MarkAlgorithm = 'v3',
    /** The job's deadline: stops the PDF renderer's running call when the work is abandoned. */
    signal?: AbortSignal,
  ): Promise<{ data: Buffer; contentType: string }> {
    const key = algorithm === 'v2' ? this.v2Key : this.key;
    try {
      if (mediaKind === 'pdf') {
        return { data: await embedPdf(input, payload, { key, signal }), contentType: 'application/pdf' };
      }
      const result = await embedImage(input, payload, { key, maxPixels: this.config.watermark.maxPixels });
      return { data: result.data, contentType: CONTENT_TYPES[result.format] ?? 'application/octet-stream' };
    } catch (error) {
      if (error instanceof WatermarkError) {
        throw new InputRejected(REJECTION_CODES[error.code], error.message);
      }
      if (error instanceof PdfWatermarkError) {
        throw new InputRejected(PDF_REJECTION_CODES[error.code], error.message);
      }
      throw error;
    }
  }

  /** The PDF renderer runs in a worker thread: stop it with the service. */
  async onApplicationShutdown(): Promise<void> {
    await closePdfRenderer();
  }
}
