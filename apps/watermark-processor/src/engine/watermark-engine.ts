import { MediaKind, OrderFailureCode } from '@cp/contracts';
import { DetectionStatus } from '@cp/contracts';
import { embedImage, extractImage, WatermarkError, WatermarkErrorCode, WatermarkKey } from '@cp/watermark';
import { Inject, Injectable } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

export type MarkAlgorithm = 'v2' | 'v3';

export interface Detection {
  status: DetectionStatus;
  payload?: bigint;
  confidence: number;
  method: string;
  /** The inspected file is an image of a PDF original's page (no report for those). */
  capturedFromPdf: boolean;
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

const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
};

/** The watermark library behind one seam: the processor's use cases and their tests talk to this. */
@Injectable()
export class WatermarkEngine {
  private readonly key: WatermarkKey;
  /** Orders made through the v2 API: another key version, so v3 extract never detects their marks (spec 9.5). */
  private readonly v2Key: WatermarkKey;

  constructor(@Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig) {
    this.key = { secret: config.watermark.secret, version: 'v3' };
    this.v2Key = { secret: config.watermark.secret, version: 'v2' };
  }

  /**
   * Looks for a v3 mark in `inspected`, registered against `original`. Never throws for bad input:
   * files outside the supported range are `unsupported`, a real failure is `error`.
   */
  async extract(inspected: Buffer, original: Buffer, originalKind: MediaKind, algorithm: MarkAlgorithm = 'v3'): Promise<Detection> {
    if (originalKind === 'pdf') {
      // PDF originals need the PDF engine (not built yet): the check cannot be made, and is refunded.
      return { status: 'unsupported', confidence: 0, method: 'none', capturedFromPdf: false };
    }
    // v3 extract looks for v3 marks only (spec 9.5); `v2` is there for a v2 extract path.
    const key = algorithm === 'v2' ? this.v2Key : this.key;
    const result = await extractImage(inspected, original, { key, maxPixels: this.config.watermark.maxPixels });
    return { status: result.status, payload: result.payload, confidence: result.confidence, method: result.method, capturedFromPdf: false };
  }

  async embed(input: Buffer, payload: bigint, mediaKind: MediaKind, algorithm: MarkAlgorithm = 'v3'): Promise<{ data: Buffer; contentType: string }> {
    if (mediaKind === 'pdf') {
      // PDF marks are a separate engine (not built yet): fail clearly instead of hanging or crashing.
      throw new InputRejected(OrderFailureCode.PROCESSING_ERROR, 'PDF watermarking is not available yet');
    }
    try {
      const key = algorithm === 'v2' ? this.v2Key : this.key;
      const result = await embedImage(input, payload, { key, maxPixels: this.config.watermark.maxPixels });
      return { data: result.data, contentType: CONTENT_TYPES[result.format] ?? 'application/octet-stream' };
    } catch (error) {
      if (error instanceof WatermarkError) {
        throw new InputRejected(REJECTION_CODES[error.code], error.message);
      }
      throw error;
    }
  }
}
