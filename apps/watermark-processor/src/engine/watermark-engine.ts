import { MediaKind, OrderFailureCode } from '@cp/contracts';
import { embedImage, WatermarkError, WatermarkErrorCode, WatermarkKey } from '@cp/watermark';
import { Inject, Injectable } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

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

  constructor(@Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig) {
    this.key = { secret: config.watermark.secret, version: 'v3' };
  }

  async embed(input: Buffer, payload: bigint, mediaKind: MediaKind): Promise<{ data: Buffer; contentType: string }> {
    if (mediaKind === 'pdf') {
      // PDF marks are a separate engine (not built yet): fail clearly instead of hanging or crashing.
      throw new InputRejected(OrderFailureCode.PROCESSING_ERROR, 'PDF watermarking is not available yet');
    }
    try {
      const result = await embedImage(input, payload, { key: this.key, maxPixels: this.config.watermark.maxPixels });
      return { data: result.data, contentType: CONTENT_TYPES[result.format] ?? 'application/octet-stream' };
    } catch (error) {
      if (error instanceof WatermarkError) {
        throw new InputRejected(REJECTION_CODES[error.code], error.message);
      }
      throw error;
    }
  }
}
