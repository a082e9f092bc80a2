import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { CallerScoped } from './accounts';
import { AiDetectionCategory, AiDetectionEvidence, AiDetectionVerdict } from './ai-detection';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { ORDER_ID_PATTERN, OrderStatus } from './order-values';
import { V2CreatedFileView } from './v2';
import { IsNestedObject, IsPublicHttpsUrl } from './validators';

/** Images the detector reads (docs/ai-detection.md). */
export const AI_DETECTION_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|tif|tiff|gif|avif)$/i;

/** Spec 2.7 thresholds: likely_real < 0.25 ≤ uncertain_real < 0.5 ≤ uncertain_ai < 0.75 ≤ likely_ai. */
export function aiDetectionCategoryOf(probability: number): AiDetectionCategory {
  return probability < 0.25 ? 'likely_real' : probability < 0.5 ? 'uncertain_real' : probability < 0.75 ? 'uncertain_ai' : 'likely_ai';
}

export class AiDetectionOptionsDto {
  @ApiPropertyOptional({ default: false, description: 'draw a heatmap where a signal is regional (classifier patches, watermark blocks)' })
  @IsOptional()
  @IsBoolean()
  generateHeatmap?: boolean;

  @ApiPropertyOptional({ default: false, description: 'blend the heatmap over the image' })
  @IsOptional()
  @IsBoolean()
  generateOverlay?: boolean;
}

export class AiDetectionFileDto {
  @ApiProperty({ maxLength: 255, example: 'photo.jpg', description: 'extension one of jpg, jpeg, png, webp, tif, tiff, gif, avif' })
  @IsString()
  @MaxLength(255)
  @Matches(AI_DETECTION_FILE_NAME_PATTERN)
  fileName!: string;

  @ApiPropertyOptional({ description: 'public HTTPS URL; fetched by the service (32 MiB, no redirects); without it the file gets an upload URL' })
  @IsOptional()
  @IsPublicHttpsUrl()
  originalFileUrl?: string;
}

/** Body of `POST /api/v2/orders/ai-detection` (docs/api-decisions.md). */
export class CreateAiDetectionOrderDto {
  @ApiProperty({ maxLength: 255, example: '5e2a7c10-3f4b-4c6d-8e9f-0a1b2c3d4e5f', description: IDEMPOTENCY_KEY_DESCRIPTION })
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
  @IsOptional()
  @IsNestedObject(() => AiDetectionOptionsDto)
  options?: AiDetectionOptionsDto;
}

/** Body of `POST /api/v2/orders/ai-detection/confirm` (spec 4.15). */
export class ConfirmAiDetectionOrderDto {
  @ApiProperty({ maxLength: 255, description: 'repeating it returns the current state without reprocessing' })
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

export interface AiDetectionOrderCreatedView {
  orderId: string;
  /** `pending` until confirmed. */
  status: OrderStatus;
  files: V2CreatedFileView[];
}

/** Spec 4.15 response `data`. */
export interface AiDetectionConfirmView {
  orderId: string;
  status: OrderStatus;
}

/** What the detector concluded about one image, as every reader of it (v3 view, report) shows it. */
export interface AiDetectionAnalysis {
  probability: number;
  /** Spec 2.7 category of the probability, kept for compatibility; `verdict` is what a person reads. */
  category: AiDetectionCategory;
  verdict: AiDetectionVerdict;
  /** true: no signal found anything ("cannot be determined: no evidence"). */
  noEvidence: boolean;
  statement: string;
  evidence: AiDetectionEvidence[];
  heatmapNote: string | null;
}

/** One analysed image of an AI detection order (v3 read). */
export interface AiDetectionFileResultView extends AiDetectionAnalysis {
  fileId: string;
  /** Presigned for 1 hour on each read; null when absent or once the order expired (docs/api-decisions.md). */
  images: AiDetectionImageUrlsView;
}

/** The images of one analysed file (spec 2.7 size rules: WebP, longer side ≤ 1600 px; thumbnail within 740×400). */
export interface AiDetectionImageUrlsView {
  /** The WebP copy when the input is larger than 1600 px, else the original input. */
  originalUrl: string | null;
  thumbnailUrl: string | null;
  /** Only when `generateHeatmap` was asked and a signal gave per-region evidence (`heatmapNote` says why not). */
  heatmapUrl: string | null;
  overlayUrl: string | null;
}

/** The v3 read's `detection` of an AI detection order (null until processed). */
export interface AiDetectionResultView {
  /** The highest probability over the order's images, its category, and that image's verdict and noEvidence. */
  probability: number;
  category: AiDetectionCategory;
  verdict: AiDetectionVerdict;
  noEvidence: boolean;
  options: { generateHeatmap: boolean; generateOverlay: boolean };
  files: AiDetectionFileResultView[];
}

