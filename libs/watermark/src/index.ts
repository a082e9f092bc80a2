export {
  DEFAULT_MAX_PIXELS,
  WatermarkError,
  WatermarkErrorCode,
} from './types';
export type {
  DetectionStatus,
  EmbedOptions,
  EmbedResult,
  ExtractMethod,
  ExtractOptions,
  ExtractResult,
  ImageFormat,
  ImageInfo,
  MarkVersion,
  WatermarkKey,
} from './types';
export { embedImage } from './embed';
export { extractImage, DETECT_THRESHOLD } from './extract';
export { inspectImage } from './inspect';
