import { IsArray, IsISO8601, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { OrderFailureCode } from './errors';
import { StoredObjectRef } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';
import { OutputRef } from './watermark-jobs';
import { IsHttpsUrl, IsNestedObject } from './validators';

/** `options.strength` of anti-AI orders (what each adds: docs/anti-ai.md). */
export const ANTI_AI_STRENGTH_VALUES = ['low', 'medium', 'high'] as const;
export type AntiAiStrengthValue = (typeof ANTI_AI_STRENGTH_VALUES)[number];

/**
 * Public failure codes of one anti-AI file (members of the one public list, `OrderFailureCode`), besides the
 * image codes embed already has (`WATERMARK_FILE_INVALID`, `WATERMARK_FILE_TOO_LARGE`,
 * `WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED`).
 */
export const AntiAiFailureCode = {
  ANTI_AI_FORMAT_UNSUPPORTED: OrderFailureCode.ANTI_AI_FORMAT_UNSUPPORTED,
  ANTI_AI_OUTPUT_TARGET_EXPIRED: OrderFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED,
  ANTI_AI_OUTPUT_TARGET_REFUSED: OrderFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED,
  ANTI_AI_OUTPUT_TARGET_UNREACHABLE: OrderFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE,
  ANTI_AI_OUTPUT_TARGET_FORBIDDEN: OrderFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN,
} as const;
export type AntiAiFailureCode = (typeof AntiAiFailureCode)[keyof typeof AntiAiFailureCode];

/** Zero-copy destination of one result: the client's presigned PUT URL. */
export class AntiAiOutputTarget {
  // The rule creation applies (4,096 characters): validator.js' isURL stops at 2,083, so a longer target that creation
  // accepted parked every job of its order as an invalid payload.
  @IsHttpsUrl()
  url!: string;

  /** After this instant the file fails with ANTI_AI_OUTPUT_TARGET_EXPIRED instead of being sent. */
  @IsISO8601({ strict: true })
  presignedUrlExpiresAt!: string;
}

/** `job.watermark.anti-ai`: protect one file of an anti-AI order. */
export class AntiAiJob extends OutputRef {
  static readonly subject = JobSubjects.watermarkAntiAi;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsIn(ANTI_AI_STRENGTH_VALUES)
  strength!: AntiAiStrengthValue;

  @IsNestedObject(() => StoredObjectRef)
  input!: StoredObjectRef;

  /** Where the result goes in our storage; absent in zero-copy mode. */
  @IsOptional()
  @IsNestedObject(() => StoredObjectRef)
  output?: StoredObjectRef;

  /** Zero-copy mode: the result is PUT here and never kept in our storage. */
  @IsOptional()
  @IsNestedObject(() => AntiAiOutputTarget)
  outputTarget?: AntiAiOutputTarget;

  /** The order's v2 detail thumbnail (spec 2.7: WebP within 740×400), asked of one job per order. */
  @IsOptional()
  @IsNestedObject(() => StoredObjectRef)
  thumbnail?: StoredObjectRef;

  /** `tdm:policy`: the client's TDMRep policy URL (its host checked at creation; only written, never fetched). */
  @IsOptional()
  @IsHttpsUrl()
  tdmPolicyUrl?: string;

  /** `dc:rights` text; a neutral "all rights reserved, no AI training" sentence when absent. */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  rights?: string;
}

/** `evt.watermark.anti-ai-output.completed` */
export class AntiAiOutputCompletedEvent extends OutputRef {
  static readonly subject = EventSubjects.antiAiOutputCompleted;

  /** `stored`: at `objectKey` in the outputs bucket; `zeroCopy`: delivered to the client's target only. */
  @IsIn(['stored', 'zeroCopy'])
  delivery!: 'stored' | 'zeroCopy';

  @IsOptional()
  @IsString()
  objectKey?: string;

  @IsInt()
  @Min(0)
  size!: number;

  /** Set when the job asked for the order's thumbnail and it was written there (absent: none could be made). */
  @IsOptional()
  @IsNestedObject(() => StoredObjectRef)
  thumbnail?: StoredObjectRef;

  /** The layers applied (`optOutMetadata`, `contentCredentials`, `watermark`). */
  @IsArray()
  @IsString({ each: true })
  layers!: string[];
}

/** `evt.watermark.anti-ai-output.failed`: permanent; the credit of the file comes back. */
export class AntiAiOutputFailedEvent extends OutputRef {
  static readonly subject = EventSubjects.antiAiOutputFailed;

  /** AntiAiFailureCode or an image OrderFailureCode. */
  @IsString()
  code!: string;
}
