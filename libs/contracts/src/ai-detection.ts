import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { StoredObjectRef } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';
import { IsNestedObject } from './validators';

export const AI_DETECTION_CATEGORIES = ['likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'] as const;
export type AiDetectionCategory = (typeof AI_DETECTION_CATEGORIES)[number];

/**
 * What a person can act on (docs/api-decisions.md): a side is named only when the evidence reaches a `likely_*`
 * band; a file with nothing to read, or only weak claims, is `cannot_be_determined` (never "leaning AI").
 */
export const AI_DETECTION_VERDICTS = ['generated', 'edited_with_ai', 'captured', 'cannot_be_determined'] as const;
export type AiDetectionVerdict = (typeof AI_DETECTION_VERDICTS)[number];

/**
 * The verdict of a stored analysis; analyses recorded before verdicts existed get the one their category and
 * `noEvidence` imply (they never named "edited with AI").
 */
export function aiDetectionVerdictOf(analysis: { verdict?: AiDetectionVerdict; category: AiDetectionCategory; noEvidence: boolean }): AiDetectionVerdict {
  if (analysis.verdict) return analysis.verdict;
  if (analysis.noEvidence) return 'cannot_be_determined';
  return analysis.category === 'likely_ai' ? 'generated' : analysis.category === 'likely_real' ? 'captured' : 'cannot_be_determined';
}

/** `job.aidetect.detect`: analyse one image of an aiDetection order. */
export class AiDetectionJob {
  static readonly subject = JobSubjects.aiDetect;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  @IsNestedObject(() => StoredObjectRef)
  input!: StoredObjectRef;

  /** Bucket and key prefix under which the detector writes its images (heatmap, overlay, copies, thumbnail). */
  @IsString()
  outputBucket!: string;

  @IsString()
  outputPrefix!: string;

  @IsBoolean()
  generateHeatmap!: boolean;

  @IsBoolean()
  generateOverlay!: boolean;
}

/** One manifest of a Content Credentials chain (the file's own, then its ingredients'), as c2pa-rs validated it. */
export class AiDetectionProvenanceStep {
  @IsString()
  label!: string;

  @IsInt() @Min(0)
  depth!: number;

  /** `active` (the file's own manifest) or the ingredient relationship (`parentOf`, `componentOf`, `inputTo`). */
  @IsString()
  relationship!: string;

  @IsOptional() @IsString()
  title!: string | null;

  @IsOptional() @IsString()
  signer!: string | null;

  @IsOptional() @IsString()
  issuer!: string | null;

  /** Time of the signature's time stamp, when it carries one. */
  @IsOptional() @IsString()
  signedAt!: string | null;

  /** c2pa-rs found the signer under an anchor of the C2PA Trust List (false otherwise: fail closed). */
  @IsBoolean()
  signerTrusted!: boolean;

  @IsOptional() @IsBoolean()
  timeStampTrusted!: boolean | null;

  @IsOptional() @IsString()
  claimGenerator!: string | null;

  @IsArray() @IsString({ each: true })
  actions!: string[];

  @IsOptional() @IsString()
  digitalSourceType!: string | null;
}

/** One finding of one signal, as stored and shown (docs/ai-detection.md lists the findings). */
export class AiDetectionEvidence {
  @IsIn(['c2pa', 'metadata', 'sdWatermark', 'classifier'])
  signal!: 'c2pa' | 'metadata' | 'sdWatermark' | 'classifier';

  @IsString()
  finding!: string;

  @IsString()
  description!: string;

  @IsIn(['ai', 'real', 'neutral'])
  direction!: 'ai' | 'real' | 'neutral';

  /** Log-odds this finding added (0: reported, not counted). */
  @IsNumber()
  weight!: number;

  @IsObject()
  details!: Record<string, string | number | boolean | null>;

  /** Content Credentials findings: the provenance chain (signer, time stamp, actions, source type, generator). */
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => AiDetectionProvenanceStep)
  provenance?: AiDetectionProvenanceStep[];
}

/** Images the detector stored for one file; absent ones are null. */
export class AiDetectionImages {
  /** WebP copy of the input, longer side ≤ 1600 px (null when the input already is that small: use the original). */
  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  preview!: StoredObjectRef | null;

  /** WebP thumbnail within 740×400, aspect ratio kept. */
  @IsNestedObject(() => StoredObjectRef)
  thumbnail!: StoredObjectRef;

  /** Heatmap and overlay: WebP, longer side ≤ 1600 px; null unless asked for and regional evidence exists. */
  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  heatmap!: StoredObjectRef | null;

  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  overlay!: StoredObjectRef | null;
}

/** `evt.aidetect.detection.completed` */
export class AiDetectionCompletedEvent {
  static readonly subject = EventSubjects.aiDetectionCompleted;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  @IsNumber() @Min(0) @Max(1)
  probability!: number;

  @IsIn(AI_DETECTION_CATEGORIES)
  category!: AiDetectionCategory;

  /** Optional only for events published before verdicts existed (`aiDetectionVerdictOf` fills it in). */
  @IsOptional() @IsIn(AI_DETECTION_VERDICTS)
  verdict?: AiDetectionVerdict;

  /** true: no signal found anything ("cannot be determined: no evidence"). */
  @IsBoolean()
  noEvidence!: boolean;

  @IsString()
  statement!: string;

  @IsArray() @ValidateNested({ each: true }) @Type(() => AiDetectionEvidence)
  evidence!: AiDetectionEvidence[];

  /** Why there is no heatmap (only file-level evidence), or null. */
  @IsOptional() @IsString()
  heatmapNote!: string | null;

  @IsNestedObject(() => AiDetectionImages)
  images!: AiDetectionImages;
}

/** `evt.aidetect.detection.failed`: the file can never be analysed. */
export class AiDetectionFailedEvent {
  static readonly subject = EventSubjects.aiDetectionFailed;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  /** OrderFailureCode */
  @IsString()
  code!: string;
}
