import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { CallerScoped, OrderScoped } from './accounts';
import type { AiDetectionVerdict } from './ai-detection';
import { EmbedFileDto, IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { OrderStatus } from './order-values';
import { UploadUrlsQuery } from './uploads';
import { IsNestedObject } from './validators';

/** Spec 9.3: the v2 watermark embed and extract endpoints stop at 09:00 KST on 9 October 2026. */
export const V2_RETIREMENT_AT = new Date('2026-10-09T00:00:00.000Z');
/** `Sunset` header value (RFC 8594, an HTTP-date). */
export const V2_SUNSET_HTTP_DATE = 'Fri, 09 Oct 2026 00:00:00 GMT';

export function isV2Retired(now: Date): boolean {
  return now.getTime() >= V2_RETIREMENT_AT.getTime();
}

/** Spec 4.9/4.10: the formats the v2 endpoints accept (no `tif`, unlike v3). */
export const V2_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|bmp|tiff|pdf)$/i;

export type V2FileFormat = 'JPG' | 'PNG' | 'WEBP' | 'BMP' | 'TIFF' | 'PDF';
export type V2FileType = 'IMG' | 'DOCUMENT';

const FORMATS: Record<string, V2FileFormat> = { jpg: 'JPG', jpeg: 'JPG', png: 'PNG', webp: 'WEBP', bmp: 'BMP', tif: 'TIFF', tiff: 'TIFF', pdf: 'PDF' };

export function v2FileFormatOf(fileName: string): V2FileFormat {
  return FORMATS[fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase()] ?? 'JPG';
}

export function v2FileTypeOf(fileName: string): V2FileType {
  return v2FileFormatOf(fileName) === 'PDF' ? 'DOCUMENT' : 'IMG';
}

// ---------------------------------------------------------------------------------------------------
// Request bodies (spec 4.9, 4.10)

/** The v3 file entry with the v2 formats (no `tif`); class-validator adds these rules to the inherited ones. */
export class V2EmbedFileDto extends EmbedFileDto {
  @ApiProperty({ maxLength: 255, example: 'photo.jpg', description: 'extension one of jpg, jpeg, png, webp, bmp, tiff, pdf' })
  @Matches(V2_FILE_NAME_PATTERN)
  declare fileName: string;
}

/** Body of `POST /api/v2/orders/wtr-embed` (spec 4.9). */
export class CreateV2EmbedOrderDto {
  @ApiProperty({ maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: [V2EmbedFileDto], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => V2EmbedFileDto)
  files!: V2EmbedFileDto[];
}

export class V2ExtractFileDto {
  @ApiProperty({ maxLength: 255, example: 'found-online.jpg', description: 'the file to inspect: an image or a PDF' })
  @IsString()
  @MaxLength(255)
  @Matches(V2_FILE_NAME_PATTERN)
  fileName!: string;
}

/** Body of `POST /api/v2/orders/wtr-extract` (spec 4.10). `includeOriginal` sits at the top level. */
export class CreateV2ExtractOrderDto {
  @ApiProperty({ maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: V2ExtractFileDto })
  @IsDefined()
  @IsNestedObject(() => V2ExtractFileDto)
  file!: V2ExtractFileDto;

  @ApiPropertyOptional({ description: 'images only: also issue an upload slot for the original (`originalFile` in the response)' })
  @IsOptional()
  @IsBoolean()
  includeOriginal?: boolean;
}

export class CreateV2EmbedOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateV2EmbedOrderDto)
  request!: CreateV2EmbedOrderDto;
}

export class CreateV2ExtractOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateV2ExtractOrderDto)
  request!: CreateV2ExtractOrderDto;
}

/** `orders.v2-get`, `orders.v2-refresh-urls`, `orders.v2-download-urls` */
export class V2OrderQuery extends OrderScoped {}

export class V2RecentStatsParams {
  @ApiPropertyOptional({ description: 'reference date (YYYY-MM-DD, UTC); the 7 days end on it. Default: today' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  date?: string;
}

/** `orders.v2-stats-recent` */
export class V2RecentStatsQuery extends CallerScoped {
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  date?: string;
}

/** Spec 8: v2 refreshed upload URLs are valid 1 hour. */
export const V2_REFRESHED_UPLOAD_URL_SECONDS = 3600;
/** Spec 8: v2 thumbnail and result download URLs are valid (up to) 1 hour. */
export const V2_DOWNLOAD_URL_SECONDS = 3600;

/** Spec 2.7: the detail thumbnail of anti-AI and AI detection orders, WebP within this box, aspect ratio kept. */
export const V2_THUMBNAIL_BOX = { width: 740, height: 400 } as const;
/** Spec 2.7: the longer side of the WebP copies an AI detection order shows (original, heatmap, overlay). */
export const V2_PREVIEW_MAX_SIDE = 1600;

/** `uploads.upload-urls` with a validity of its own (v2 refresh-urls asks for 1 hour). */
export class UploadUrlsWithValidityQuery extends UploadUrlsQuery {
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(V2_REFRESHED_UPLOAD_URL_SECONDS)
  validitySeconds?: number;
}

// ---------------------------------------------------------------------------------------------------
// Responses

/** One file of a v2 creation response (spec 4.9, 4.10). */
export interface V2CreatedFileView {
  fileId: number;
  fileName: string;
  /** Upload files only. */
  uploadUrl?: string | null;
  /** URL files only. */
  originalFileUrl?: string;
  fileKey: string;
  fileFormat: V2FileFormat;
  fileType: V2FileType;
}

export interface V2EmbedOrderCreatedView {
  orderName: string;
  orderId: string;
  status: 'pending';
  files: V2CreatedFileView[];
}

export interface V2ExtractFileView extends V2CreatedFileView {
  role: 'watermarked' | 'original';
  sequence: 1;
}

export interface V2ExtractOrderCreatedView {
  orderName: string;
  orderId: string;
  file: V2ExtractFileView;
  /** Present only when `includeOriginal` was true. */
  originalFile?: V2ExtractFileView;
}

/** Spec 2.7 (the items the spec leaves unnamed are named here; see docs/v2-and-retention.md). */
export interface V2OrderDetailView {
  orderId: string;
  orderName: string;
  type: 'antiAi' | 'watermarkEmbed' | 'watermarkExtract' | 'aiDetection';
  channel: 'api' | 'web';
  status: OrderStatus;
  fileCount: number;
  thumbnailImageUrl: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  errors: { errorCode: string; errorMessage: string } | null;
  /** watermarkExtract: `detected`/`undetected` once known; aiDetection: the category of the probability (spec 2.7 thresholds). */
  statusCode?: 'detected' | 'undetected' | 'likely_real' | 'uncertain_real' | 'uncertain_ai' | 'likely_ai';
  /** aiDetection only, once processed: the highest probability over the order's images. */
  aiProbability?: number;
  /** aiDetection only, once processed: the verdict of that image (`statusCode` keeps the spec's category). */
  aiVerdict?: AiDetectionVerdict;
  /** aiDetection only, once processed: true when no signal found anything in that image. */
  aiNoEvidence?: boolean;
  /** aiDetection only: the options given at creation. */
  aiDetectionOptions?: { generateHeatmap: boolean; generateOverlay: boolean };
  /** aiDetection only, once processed: the image of the headline probability, presigned 1 hour (WebP ≤ 1600 px, else the original). */
  originalImageUrl?: string | null;
  /** aiDetection only: its heatmap and overlay (when asked for and a signal gave per-region evidence), presigned 1 hour. */
  heatmapImageUrl?: string | null;
  overlayImageUrl?: string | null;
  /** watermarkEmbed only. */
  watermarkTexts?: string[];
  /** watermarkExtract only: the detected text, null when none or not the caller's. */
  extractedWatermarkText?: string | null;
}

/** Spec 4.12 */
export interface V2RefreshedFileView {
  fileId: string;
  fileName: string;
  uploadUrl: string;
  fileKey: string;
}

export interface V2RefreshUrlsView {
  files: V2RefreshedFileView[];
}

/** Spec 4.13 */
export interface V2RecentStatsView {
  dailyStats: Array<{ usageDate: string; usageCount: number }>;
  domain: number[];
  ticks: number[];
}

/** Spec 4.17 (path and shape chosen here: `GET /api/v2/orders/{orderId}/download-urls`). */
export interface V2DownloadUrlsView {
  orderId: string;
  expiresInSeconds: number;
  expiresAt: string;
  files: Array<{ fileId: string; inputFileId: string; fileName: string; downloadUrl: string }>;
  archiveUrl: string;
}
