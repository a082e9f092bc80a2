import type { TraceInput } from './trace';
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
  /** Return what registration and the registered decoding found (`ExtractResult.diagnostics`; for the benchmark's probes). */
  diagnostics?: boolean;
  /**
   * Issue 36: the payloads issued on this original (the recipients who could have leaked it). With the original
   * given, each is tested as a possible contributor to the inspected copy (candidate tracing, `ExtractResult.trace`);
   * at most MAX_CANDIDATES are tested.
   */
  candidates?: readonly bigint[];
}
export type ExtractMethod = 'registered' | 'blind' | 'none';

/** The geometric edit registration found between the original and the inspected copy (original -> inspected). */
export interface FoundTransform {
  /** Rotation in degrees, counter-clockwise as seen on screen, in (-180, 180]. */
  rotationDeg: number;
  /** Inspected pixels per original pixel (geometric mean of the two axes). */
  scale: number;
  /** True when the copy is a mirror image (a vertical mirror is reported as a left-right mirror rotated by 180). */
  mirrored: boolean;
  /** Share (0..1) of the original's area that is visible in the inspected copy (1 = no crop). */
  originalAreaVisible: number;
  /** True when a projective (perspective) component was needed. */
  perspective: boolean;
}

/**
 * What a detection rests on, for reports: the decoded code word against the code's design. `chanceBound` is the
 * design bound on a false match for one extraction (an unmarked file, another key, or another recipient's copy
 * yielding this id with a valid check): decoding attempts x 2^-checkBits.
 */
export interface DetectionEvidence {
  payloadBits: number;
  checkBits: number;
  /** Check bits equal to the keyed MAC of the decoded id (all of them, or the id is not reported). */
  checkBitsMatched: number;
  codedBits: number;
  /** Coded bits whose observed sign agreed with the re-encoded code word before error correction. */
  codedBitsAgreeing: number;
  /** Soft agreement of the observations with the code word, 0..1 (what `confidence` reports). */
  softAgreement: number;
  /** The decision threshold on softAgreement. */
  threshold: number;
  /** Decoding attempts one extraction may make (the union bound's factor). */
  decodingAttempts: number;
  chanceBound: number;
  /** Registered extractions only. */
  transform?: FoundTransform;
  /** Candidate tracing (issue 36), when candidates were tested and at least one was accused. */
  colluders?: ColluderTrace;
}
export type MixingKind = 'averaging' | 'region-splicing' | 'undetermined';

export interface AccusedRecipient {
  payload: bigint;
  /**
   * The score: the normal z of p_j, the smallest p-value of the two or three tests times their number (trace.ts; S_j
   * itself with one layer and no joint estimate).
   */
  z: number;
  /** candidates x MAX_ROUNDS x Q(z): the Bonferroni bound on accusing a non-contributor this strongly by chance. */
  bound: number;
  /** S_j / sqrt(|T_j|) (the layers' sum): correlation of the observations (after cancellation) with this recipient's code word, 0..1. */
  correlation: number;
  /** Share of the regions with a clear mark in which this recipient's mark was the strongest (mixing analysis). */
  regionShare: number | null;
}

/** Candidate tracing's outcome (issue 36, trace.ts). */
export interface ColluderTrace {
  candidatesTested: number;
  /** Strongest first. */
  accused: AccusedRecipient[];
  /** The smallest z that is accused with this many candidates. */
  threshold: number;
  /** The level every accusation's bound is held to (FALSE_MATCH_BOUND). */
  level: number;
  /** Only with two or more accused. */
  mixing: MixingKind | null;
  /** The largest score of a candidate not accused (after the last cancellation); 0 when every candidate was accused. */
  bestInnocentZ: number;
}

export interface ExtractResult {
  status: DetectionStatus;
  payload?: bigint;
  /** 0..1 */
  confidence: number;
  method: ExtractMethod;
  /** Present for `detected` and `inconclusive` results. */
  evidence?: DetectionEvidence;
  /** Present when `ExtractOptions.diagnostics` asked for it. */
  diagnostics?: ExtractDiagnostics;
  /**
   * Present when candidates were given and the registered decoding ran (issue 36). With two or more accused the
   * result is `detected` without a `payload` (several recipients contributed); with one, `payload` is that one.
   */
  trace?: ColluderTrace;
}

/** The intermediate figures of one extraction (the benchmark's probes read them). */
export interface ExtractDiagnostics {
  /** The best registration found, trusted or not (inspected working pixels to original working pixels); null when there was no original or none was found. */
  /** `placedOnMark`: the registration found nothing of the picture and H was found on the mark (mark-placement.ts). */
  registration: { H: Float64Array; ncc: number; placedOnMark?: boolean } | null;
  /** Null when the registration was not trusted, or the decoding stopped before the per-layer z-scores. */
  registeredDecoding: RegisteredDecodingDiagnostics | null;
  /** What candidate tracing read (issue 36; only when candidates were given): the benchmark re-traces other candidate sets from it. */
  traceInput?: TraceInput | null;
}

export interface RegisteredDecodingDiagnostics {
  /** The homography the original was warped with. */
  H: Float64Array;
  /** Local scale (original pixels per inspected pixel). */
  scale: number;
  /** Whether the fitted FIR filter was used. */
  fir: boolean;
  /** Sum of the FIR taps (its gain on flat content); 1 when none was fitted. */
  firGain: number;
  /** Per-coded-bit z-scores of each layer (fine first). */
  zs: Float64Array[];
  /** The joint least-squares estimate of the coded bits, when the layers alone were too weak and it was computed. */
  joint?: Float64Array;
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
