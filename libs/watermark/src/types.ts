export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'bmp' | 'tiff';
export type DetectionStatus = 'detected' | 'not_detected' | 'inconclusive' | 'unsupported' | 'error';
/** v2 = the retired algorithm; v3 extraction never detects a v2 mark (different pattern and MAC domain). */
export type MarkVersion = 'v3' | 'v2';
/** The embedding pattern and the payload MAC are derived from (secret, version). */
export interface WatermarkKey {
  secret: string;
  version: MarkVersion;
}
export interface EmbedOptions {
  key: WatermarkKey;
  /** Refuse images above this many pixels before decoding (default 100_000_000). */
  maxPixels?: number;
}
export interface EmbedResult {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}
export interface ExtractOptions {
  key: WatermarkKey;
  maxPixels?: number;
}
export type ExtractMethod = 'registered' | 'blind' | 'none';
export interface ExtractResult {
  status: DetectionStatus;
  payload?: bigint;
  /** 0..1 */
  confidence: number;
  method: ExtractMethod;
}
export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  channels: number;
}

export enum WatermarkErrorCode {
  UNSUPPORTED_FORMAT = 'UNSUPPORTED_FORMAT',
  UNSUPPORTED_COLOR_MODE = 'UNSUPPORTED_COLOR_MODE',
  TOO_MANY_PIXELS = 'TOO_MANY_PIXELS',
  CORRUPT_IMAGE = 'CORRUPT_IMAGE',
}

export class WatermarkError extends Error {
  constructor(
    readonly code: WatermarkErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WatermarkError';
  }
}

export const DEFAULT_MAX_PIXELS = 100_000_000;
