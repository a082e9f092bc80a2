export {
  DEFAULT_MAX_PIXELS,
  WatermarkError,
  WatermarkErrorCode,
} from './types';
export type {
  AccusedRecipient,
  ColluderTrace,
  MixingKind,
  DetectionEvidence,
  DetectionStatus,
  EmbedOptions,
  EmbedResult,
  ExtractDiagnostics,
  ExtractMethod,
  ExtractOptions,
  ExtractResult,
  RegisteredDecodingDiagnostics,
  FoundTransform,
  ImageFormat,
  ImageInfo,
  MarkVersion,
  WatermarkKey,
} from './types';
export { embedImage, flatMarkField, planMark } from './embed';
export type { MarkPlan } from './embed';
export { extractImage, DETECT_THRESHOLD, DECODING_ATTEMPTS, FALSE_MATCH_BOUND } from './extract';
export { inspectImage } from './inspect';
export {
  attributeExiftoolFailure,
  BoundedExiftool,
  boundedExiftool,
  exiftoolLimits,
  EXIFTOOL_READ_MAX_MEMORY_MB,
  EXIFTOOL_WRITE_MAX_MEMORY_MB,
  ExiftoolFileFailure,
  ExiftoolMachineFailure,
  isExiftoolFileFailure,
} from './bounded-exiftool';
export type { BoundedExiftoolOptions, ExiftoolLimits, TaskReading } from './bounded-exiftool';
export { PNG_METADATA_MAX_BYTES, withinPngMetadataBudget } from './png-metadata-budget';
export type { BoundedPng } from './png-metadata-budget';
export { issuedPayload, isScrambledPayload, serialOfPayload } from './issued-payload';
export { MAX_CANDIDATES, MAX_ROUNDS, accusationThreshold, normalTail, codeSigns, nullScores, traceColluders } from './trace';
export type { TraceInput } from './trace';
