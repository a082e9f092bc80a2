import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsNumber, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, registerDecorator, ValidationOptions } from 'class-validator';
import { CallerScoped } from './accounts';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { DetectionStatus, MediaKind } from './order-values';
import { ExaminedBytes, StoredObjectRef } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';
import { IsNestedObject } from './validators';

export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'tif', 'tiff'] as const;
/** Spec 4.2 rule 1: what may be inspected against an original of each kind. */
const INSPECTABLE: Record<'image' | 'pdf', readonly string[]> = {
  image: IMAGE_EXTENSIONS,
  pdf: ['pdf', 'png', 'jpg', 'jpeg'],
};
const FILE_NAME = /^[^/\\\u0000-\u001f]+\.[A-Za-z0-9]+$/;

export function extensionOf(fileName: string): string {
  return fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
}

export function mediaKindOf(fileName: string): MediaKind {
  return extensionOf(fileName) === 'pdf' ? 'pdf' : 'image';
}

export class OriginalFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.png', description: `extension one of ${IMAGE_EXTENSIONS.join(', ')}, pdf` })
  @IsString()
  @MaxLength(255)
  @Matches(FILE_NAME)
  @Matches(/\.(jpg|jpeg|png|webp|bmp|tif|tiff|pdf)$/i)
  fileName!: string;
}

/** The inspected file's extension must suit the original's kind (spec 4.2 rule 1). */
function InspectableAgainstOriginal(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'inspectableAgainstOriginal',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (fileName: unknown, args) => {
          const original = (args?.object as ExtractFileDto | undefined)?.originalFile?.fileName;
          if (typeof fileName !== 'string' || typeof original !== 'string') {
            return false;
          }
          return INSPECTABLE[mediaKindOf(original)].includes(extensionOf(fileName));
        },
      },
    });
}

export class ExtractFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'found-online.jpg', description: 'the file to inspect' })
  @IsString()
  @MaxLength(255)
  @Matches(FILE_NAME)
  @InspectableAgainstOriginal()
  fileName!: string;

  @ApiProperty({ type: OriginalFileDto })
  @IsDefined()
  @IsNestedObject(() => OriginalFileDto)
  originalFile!: OriginalFileDto;
}

/** Body of `POST /api/v3/orders/wtr-extract` (spec 4.2); every field is required. */
export class CreateExtractOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: ExtractFileDto })
  @IsDefined()
  @IsNestedObject(() => ExtractFileDto)
  file!: ExtractFileDto;
}

/** `orders.create-extract` */
export class CreateExtractOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateExtractOrderDto)
  request!: CreateExtractOrderDto;
}

/** `job.watermark.extract` */
export class ExtractJob {
  static readonly subject = JobSubjects.watermarkExtract;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  /** The account that ordered the check: only its own issuances show their text. */
  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsNestedObject(() => StoredObjectRef)
  original!: StoredObjectRef;

  @IsNestedObject(() => StoredObjectRef)
  inspected!: StoredObjectRef;

  /** Which marks to look for: v2 orders look for the retired algorithm's marks, v3 orders for v3 (spec 9.5). */
  @IsOptional()
  @IsIn(['v2', 'v3'])
  algorithm?: 'v2' | 'v3';
}

/** The geometric edit registration found (original -> inspected); see @cp/watermark `FoundTransform`. */
export interface FoundTransformView {
  /** Degrees, counter-clockwise on screen, in (-180, 180]. */
  rotationDeg: number;
  scale: number;
  mirrored: boolean;
  originalAreaVisible: number;
  perspective: boolean;
}

/**
 * What a detection rests on, for reports (issue 16; see @cp/watermark `DetectionEvidence`): check bits matched,
 * coded bits agreeing before error correction, the soft agreement against its threshold, and the design bound on
 * a chance match (decoding attempts x 2^-checkBits).
 */
export interface DetectionEvidenceView {
  payloadBits: number;
  checkBits: number;
  checkBitsMatched: number;
  codedBits: number;
  codedBitsAgreeing: number;
  softAgreement: number;
  threshold: number;
  decodingAttempts: number;
  chanceBound: number;
  transform?: FoundTransformView;
  /** PDFs: the 1-based page the mark was read from. */
  page?: number;
  /**
   * Issue 36, optional: candidate tracing, when several recipients were issued the same original and at least one
   * was accused of contributing to the inspected copy (report only; the public `result` keeps its three fields).
   */
  colluders?: ColluderTraceView;
}

/** One recipient accused by candidate tracing (issue 36): the issuance, and the score it was accused on. */
export interface AccusedRecipientView {
  /** The order the recipient's copy was issued in. */
  orderId: string;
  watermarkText: string;
  /**
   * z-value under "did not contribute": the normal score of the smallest p-value of the tracing's two or three tests,
   * times their number.
   */
  z: number;
  /** candidates x rounds x Gaussian tail of z: the bound on accusing a non-contributor this strongly by chance. */
  bound: number;
  /** Correlation (0..1) of the observations with the recipient's code word. */
  correlation: number;
  /** Share of the clearly marked regions where this recipient's mark was the strongest; null when not analysed. */
  regionShare: number | null;
}

/** Candidate tracing's outcome (issue 36; see @cp/watermark `ColluderTrace`). */
export interface ColluderTraceView {
  candidatesTested: number;
  /** The level each accusation's bound is held to (the single-leaker decode's design bound). */
  level: number;
  /** The smallest z accused with this many candidates. */
  threshold: number;
  /** With two or more accused: averaging (or a median), splicing by region, or undetermined. */
  mixing: 'averaging' | 'region-splicing' | 'undetermined' | null;
  accused: AccusedRecipientView[];
}

/** The two files an extract job read (each absent when it was not read: too large, or no original). */
export class ExaminedExtractFiles {
  @IsOptional()
  @IsNestedObject(() => ExaminedBytes)
  original?: ExaminedBytes;

  @IsOptional()
  @IsNestedObject(() => ExaminedBytes)
  inspected?: ExaminedBytes;
}

/** `evt.watermark.extract.completed`: the detection outcome of one extract order. */
export class ExtractCompletedEvent {
  static readonly subject = EventSubjects.extractCompleted;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsIn(['detected', 'not_detected', 'inconclusive', 'unsupported', 'error'])
  detectionStatus!: DetectionStatus;

  @IsBoolean()
  reportSupported!: boolean;

  /** Only when detected, issued by the same account, and exactly one issuance matches. */
  @IsOptional()
  @IsString()
  watermarkText?: string | null;

  @IsNumber()
  @Min(0)
  @Max(1)
  confidence!: number;

  /** How the decision was reached (for reports): registered against the original, blind, or none. */
  @IsString()
  method!: string;

  /** Optional: what a detected / inconclusive result rests on (for reports). */
  @IsOptional()
  @IsObject()
  evidence?: DetectionEvidenceView | null;

  /** What the job read (for reports: they certify these bytes). Optional for events published before it existed. */
  @IsOptional()
  @IsNestedObject(() => ExaminedExtractFiles)
  examined?: ExaminedExtractFiles;
}
