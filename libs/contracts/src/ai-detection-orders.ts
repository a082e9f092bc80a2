import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { CallerScoped } from './accounts';
import { AI_DETECTION_CATEGORIES, AI_PROBABILITY_MEANING, AiDetectionCategory, AiDetectionEvidence, AiDetectionVerdict, ApiAiDetectionOptionsProperty, ApiVerdictProperty } from './ai-detection';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { ORDER_ID_PATTERN, ORDER_STATUSES, OrderStatus } from './order-values';
import { V2CreatedFileView } from './v2';
import { IsNestedObject, IsOptionalNotNull, IsPublicHttpsUrl } from './validators';

/** Images the detector reads (docs/ai-detection.md). */
export const AI_DETECTION_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|tif|tiff|gif|avif)$/i;

/** Spec 2.7 thresholds: likely_real < 0.25 ≤ uncertain_real < 0.5 ≤ uncertain_ai < 0.75 ≤ likely_ai. */
export function aiDetectionCategoryOf(probability: number): AiDetectionCategory {
  return probability < 0.25 ? 'likely_real' : probability < 0.5 ? 'uncertain_real' : probability < 0.75 ? 'uncertain_ai' : 'likely_ai';
}

export class AiDetectionOptionsDto {
  @ApiPropertyOptional({ default: false, description: 'draw a heatmap where a signal is regional (classifier patches, watermark blocks)' })
  @IsOptionalNotNull()
  @IsBoolean()
  generateHeatmap?: boolean;

  @ApiPropertyOptional({ default: false, description: 'blend the heatmap over the image' })
  @IsOptionalNotNull()
  @IsBoolean()
  generateOverlay?: boolean;
}

export class AiDetectionFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.jpg', description: 'extension one of jpg, jpeg, png, webp, tif, tiff, gif, avif' })
  @IsString()
  @MaxLength(255)
  @Matches(AI_DETECTION_FILE_NAME_PATTERN)
  fileName!: string;

  @ApiPropertyOptional({ description: 'public HTTPS URL; fetched by the service (32 MiB, no redirects); without it the file gets an upload URL' })
  @IsOptionalNotNull()
  @IsPublicHttpsUrl()
  originalFileUrl?: string;
}

/** Body of `POST /api/v2/orders/ai-detection` (docs/api-decisions.md). */
export class CreateAiDetectionOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '5e2a7c10-3f4b-4c6d-8e9f-0a1b2c3d4e5f', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: [AiDetectionFileDto], minItems: 1, maxItems: 20 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => AiDetectionFileDto)
  files!: AiDetectionFileDto[];

  @ApiPropertyOptional({ type: AiDetectionOptionsDto })
  @IsOptionalNotNull()
  @IsNestedObject(() => AiDetectionOptionsDto)
  options?: AiDetectionOptionsDto;
}

/** Body of `POST /api/v2/orders/ai-detection/confirm` (spec 4.15). */
export class ConfirmAiDetectionOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, description: 'repeating it returns the current state without reprocessing' })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ pattern: '^[0-9]{1,20}$', example: '46' })
  @IsString()
  @Matches(ORDER_ID_PATTERN)
  orderId!: string;
}

/** `orders.create-ai-detection` */
export class CreateAiDetectionOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateAiDetectionOrderDto)
  request!: CreateAiDetectionOrderDto;
}

/** `orders.confirm-ai-detection` */
export class ConfirmAiDetectionOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => ConfirmAiDetectionOrderDto)
  request!: ConfirmAiDetectionOrderDto;
}

@ApiSchema({ name: 'AiDetectionOrderCreated' })
export class AiDetectionOrderCreatedView {
  @ApiProperty({ example: '46' })
  orderId!: string;
  /** `pending` until confirmed; a replay of the creation (same key and body) answers the order's current status. */
  @ApiProperty({
    enum: [...ORDER_STATUSES],
    description: '`pending` at creation, until `POST /api/v2/orders/ai-detection/confirm`; a repeated request (same key and body) answers the order\'s current status',
    example: 'pending',
  })
  status!: OrderStatus;
  @ApiProperty({ type: () => [V2CreatedFileView] })
  files!: V2CreatedFileView[];
}

/** Spec 4.15 response `data`. */
@ApiSchema({ name: 'AiDetectionConfirm' })
export class AiDetectionConfirmView {
  @ApiProperty({ example: '46' })
  orderId!: string;
  @ApiProperty({ enum: [...ORDER_STATUSES], description: '`inProgress` once the analysis started; the current state on a repeated key', example: 'inProgress' })
  status!: OrderStatus;
}

/** What the detector concluded about one image, as every reader of it (v3 view, report) shows it. */
export interface AiDetectionAnalysis {
  probability: number;
  /** Spec 2.7 category of the probability, kept for compatibility; `verdict` is what a person reads. */
  category: AiDetectionCategory;
  verdict: AiDetectionVerdict;
  /** true: no finding was counted (probability 0.5); `statement` says what was found and not counted, if anything. */
  noEvidence: boolean;
  statement: string;
  evidence: AiDetectionEvidence[];
  heatmapNote: string | null;
}

const VERDICT_MEANING =
  'what a person can act on: a side only when the evidence reaches a likely_* band; no evidence or weak claims: cannot_be_determined (docs/api-decisions.md)';

const PRESIGNED = 'http://127.0.0.1:9000/cp-outputs/1/46/ai-detection/101';

/** The images of one analysed file (spec 2.7 size rules: WebP, longer side ≤ 1600 px; thumbnail within 740×400). */
@ApiSchema({
  name: 'AiDetectionImageUrls',
  description: 'Presigned on each read, valid 1 hour; `null` when absent (test keys, no regional evidence) and once the order expired.',
})
export class AiDetectionImageUrlsView {
  /** The WebP copy when the input is larger than 1600 px, else the original input. */
  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'WebP copy with the longer side at most 1600 px when the input is larger, else the original input',
    example: `${PRESIGNED}/preview.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c`,
  })
  originalUrl!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'WebP within 740×400, aspect ratio kept',
    example: `${PRESIGNED}/thumbnail.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c`,
  })
  thumbnailUrl!: string | null;
  /** Only when `generateHeatmap` was asked and a signal gave per-region evidence (`heatmapNote` says why not). */
  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'WebP, longer side at most 1600 px; only with `generateHeatmap` and per-region evidence',
    example: `${PRESIGNED}/heatmap.webp?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c`,
  })
  heatmapUrl!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'the heatmap blended over the image; only with `generateOverlay` and per-region evidence',
    example: null,
  })
  overlayUrl!: string | null;
}

/** One analysed image of an AI detection order (v3 read). */
@ApiSchema({ name: 'AiDetectionFileResult' })
export class AiDetectionFileResultView implements AiDetectionAnalysis {
  @ApiProperty({ example: '101' })
  fileId!: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: AI_PROBABILITY_MEANING, example: 0.5 })
  probability!: number;
  @ApiProperty({ enum: [...AI_DETECTION_CATEGORIES], example: 'uncertain_ai' })
  category!: AiDetectionCategory;
  @ApiVerdictProperty(VERDICT_MEANING)
  verdict!: AiDetectionVerdict;
  @ApiProperty({ description: 'no finding was counted (probability 0.5, verdict cannot_be_determined); findings of weight 0 may still be listed (e.g. a manifest that fails validation), and `statement` names them', example: true })
  noEvidence!: boolean;
  @ApiProperty({ example: 'Cannot be determined: no provenance or generator evidence was found.' })
  statement!: string;
  @ApiProperty({ type: () => [AiDetectionEvidence] })
  evidence!: AiDetectionEvidence[];
  @ApiProperty({ type: 'string', nullable: true, example: 'Only file-level evidence: no heatmap is drawn.' })
  heatmapNote!: string | null;
  /** Presigned for 1 hour on each read; null when absent or once the order expired (docs/api-decisions.md). */
  @ApiProperty({ type: () => AiDetectionImageUrlsView })
  images!: AiDetectionImageUrlsView;
}

/** The v3 read's `detection` of an AI detection order (null until processed, and for an order that failed). */
@ApiSchema({ name: 'AiDetectionResult' })
export class AiDetectionResultView {
  /** The highest probability over the order's images, its category, and that image's verdict and noEvidence. */
  @ApiProperty({ minimum: 0, maximum: 1, description: `the highest over the order's images; ${AI_PROBABILITY_MEANING}`, example: 0.5 })
  probability!: number;
  @ApiProperty({ enum: [...AI_DETECTION_CATEGORIES], description: 'spec 2.7 thresholds: < 0.25, < 0.5, < 0.75, ≥ 0.75', example: 'uncertain_ai' })
  category!: AiDetectionCategory;
  @ApiVerdictProperty(VERDICT_MEANING)
  verdict!: AiDetectionVerdict;
  @ApiProperty({ description: 'no finding was counted in the headline image (its findings of weight 0 may still be listed)', example: true })
  noEvidence!: boolean;
  @ApiAiDetectionOptionsProperty()
  options!: { generateHeatmap: boolean; generateOverlay: boolean };
  @ApiProperty({ type: () => [AiDetectionFileResultView] })
  files!: AiDetectionFileResultView[];
}
