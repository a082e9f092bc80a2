import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { CallerScoped, OrderScoped } from './accounts';
import { AI_PROBABILITY_MEANING, AiDetectionVerdict, ApiAiDetectionOptionsProperty, ApiVerdictProperty } from './ai-detection';
import { EmbedFileDto, IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { ORDER_TYPES, OrderType } from './order-events';
import { ORDER_STATUSES, OrderStatus } from './order-values';
import { UploadUrlsQuery } from './uploads';
import { IsCalendarDate, IsNestedObject, IsOptionalNotNull } from './validators';

/** Spec 9.3: the v2 watermark embed and extract endpoints stop at 09:00 KST on 9 October 2026. */
export const V2_RETIREMENT_AT = new Date('2026-10-09T00:00:00.000Z');
/** `Sunset` header value (RFC 8594, an HTTP-date). */
export const V2_SUNSET_HTTP_DATE = 'Fri, 09 Oct 2026 00:00:00 GMT';

export function isV2Retired(now: Date): boolean {
  return now.getTime() >= V2_RETIREMENT_AT.getTime();
}

/** Spec 4.9/4.10: the formats the v2 endpoints accept (no `tif`, unlike v3). */
export const V2_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|bmp|tiff|pdf)$/i;

/**
 * Spec 4.9 lists the first six (the v2 embed formats); `GIF` and `AVIF` are the AI detection images the same file
 * shape describes (docs/api-decisions.md), which were called `JPG` before.
 */
export const V2_FILE_FORMATS = ['JPG', 'PNG', 'WEBP', 'BMP', 'TIFF', 'PDF', 'GIF', 'AVIF'] as const;
export type V2FileFormat = (typeof V2_FILE_FORMATS)[number];
export const V2_FILE_TYPES = ['IMG', 'DOCUMENT'] as const;
export type V2FileType = (typeof V2_FILE_TYPES)[number];
/** `statusCode` of the v2 detail: watermarkExtract's outcome or aiDetection's category. */
export const V2_STATUS_CODES = ['detected', 'undetected', 'likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'] as const;

const FORMATS: Record<string, V2FileFormat> = { jpg: 'JPG', jpeg: 'JPG', png: 'PNG', webp: 'WEBP', bmp: 'BMP', tif: 'TIFF', tiff: 'TIFF', pdf: 'PDF', gif: 'GIF', avif: 'AVIF' };

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
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.jpg', description: 'extension one of jpg, jpeg, png, webp, bmp, tiff, pdf' })
  @Matches(V2_FILE_NAME_PATTERN)
  declare fileName: string;
}

/** Body of `POST /api/v2/orders/wtr-embed` (spec 4.9). */
export class CreateV2EmbedOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
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
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'found-online.jpg', description: 'the file to inspect: an image or a PDF' })
  @IsString()
  @MaxLength(255)
  @Matches(V2_FILE_NAME_PATTERN)
  fileName!: string;
}

/** Body of `POST /api/v2/orders/wtr-extract` (spec 4.10). `includeOriginal` sits at the top level. */
export class CreateV2ExtractOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: V2ExtractFileDto })
  @IsDefined()
  @IsNestedObject(() => V2ExtractFileDto)
  file!: V2ExtractFileDto;

  @ApiPropertyOptional({ description: 'images only: also issue an upload slot for the original (`originalFile` in the response)' })
  @IsOptionalNotNull()
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
  @ApiPropertyOptional({ type: 'string', format: 'date', description: 'reference date (YYYY-MM-DD, UTC); the 7 days end on it. Default: today', example: '2026-11-23' })
  @IsOptionalNotNull()
  @IsCalendarDate()
  date?: string;
}

/** `orders.v2-stats-recent` */
export class V2RecentStatsQuery extends CallerScoped {
  @IsOptional()
  @IsCalendarDate()
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

// The views are classes so that the gateway's OpenAPI document generates their schemas from these decorators
// (one source, issue 31): `@ApiSchema` keeps the published schema names, without the `View` suffix.

const PRESIGNED_INPUT = 'http://127.0.0.1:9000/cp-inputs/1/42/1001/photo.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c';
const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** One file of a v2 creation response (spec 4.9, 4.10). */
@ApiSchema({ name: 'V2CreatedFile' })
export class V2CreatedFileView {
  @ApiProperty({ type: 'integer', example: 1001 })
  fileId!: number;
  @ApiProperty({ example: 'photo.jpg' })
  fileName!: string;
  /** Upload files only. */
  @ApiPropertyOptional({ type: 'string', format: 'uri', nullable: true, description: 'only for upload files', example: PRESIGNED_INPUT })
  uploadUrl?: string | null;
  /** URL files only. */
  @ApiPropertyOptional({ format: 'uri', description: 'only for URL files', example: 'https://example.com/photo.jpg' })
  originalFileUrl?: string;
  @ApiProperty({ example: '1/42/1001/photo.jpg' })
  fileKey!: string;
  @ApiProperty({ enum: [...V2_FILE_FORMATS], description: 'from the extension; `GIF` and `AVIF` only for AI detection images', example: 'JPG' })
  fileFormat!: V2FileFormat;
  @ApiProperty({ enum: [...V2_FILE_TYPES], example: 'IMG' })
  fileType!: V2FileType;
}

@ApiSchema({ name: 'V2EmbedOrderCreated' })
export class V2EmbedOrderCreatedView {
  @ApiProperty({ example: 'photo.jpg' })
  orderName!: string;
  @ApiProperty({ example: '42' })
  orderId!: string;
  @ApiProperty({ enum: ['pending'], example: 'pending' })
  status!: 'pending';
  @ApiProperty({ type: () => [V2CreatedFileView] })
  files!: V2CreatedFileView[];
}

/**
 * Its schema and the extract creation's stay hand-written in the gateway (`allOf: [V2CreatedFile, {role,
 * sequence}]`): decorators on a subclass would flatten it, and `sequence` is the number enumeration `[1]`.
 */
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

const PRESIGNED_URL = { type: 'string', format: 'uri', nullable: true } as const;

/** Spec 2.7 (the items the spec leaves unnamed are named here; see docs/v2-and-retention.md). */
@ApiSchema({ name: 'V2OrderDetail', description: 'v2 order detail (spec 2.7, deprecated).' })
export class V2OrderDetailView {
  @ApiProperty({ example: '42' })
  orderId!: string;
  @ApiProperty({ example: 'photo.jpg' })
  orderName!: string;
  @ApiProperty({ enum: [...ORDER_TYPES], example: ORDER_TYPES[0] })
  type!: OrderType;
  @ApiProperty({ enum: ['api', 'web'], example: 'api' })
  channel!: 'api' | 'web';
  @ApiProperty({ enum: [...ORDER_STATUSES], example: 'complete' })
  status!: OrderStatus;
  @ApiProperty({ type: 'integer', example: 1 })
  fileCount!: number;
  @ApiProperty({
    ...PRESIGNED_URL,
    description:
      'presigned 1 hour, null once expired. antiAi and aiDetection: WebP within 740×400 (aspect ratio kept) once made, else the first input image; watermark orders: the first input image (null for PDFs and test keys). null for a failed order that never had all its files: its inputs are deleted when it fails',
    example: 'http://127.0.0.1:9000/cp-outputs/1/42/1001-1.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c',
  })
  thumbnailImageUrl!: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-23T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-23T10:00:02.000Z' })
  updatedAt!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-12-23T10:00:00.000Z' })
  expiresAt!: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    required: ['errorCode', 'errorMessage'],
    properties: {
      errorCode: { type: 'string', example: 'ORDER_TIMEOUT' },
      errorMessage: { type: 'string', example: '12시간 안에 파일 업로드가 완료되지 않아 주문이 실패했습니다.' },
    },
  })
  errors!: { errorCode: string; errorMessage: string } | null;
  /** watermarkExtract: `detected`/`undetected` once known; aiDetection: the category of the probability (spec 2.7 thresholds). */
  @ApiPropertyOptional({
    enum: [...V2_STATUS_CODES],
    description: 'watermarkExtract: detected/undetected; aiDetection: the category of the probability',
    example: 'detected',
  })
  statusCode?: (typeof V2_STATUS_CODES)[number];
  /** aiDetection only, once processed: the highest probability over the order's images. */
  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: `aiDetection only, once processed: the headline image's; ${AI_PROBABILITY_MEANING}`, example: 0.5 })
  aiProbability?: number;
  /** aiDetection only, once processed: the verdict of that image (`statusCode` keeps the spec's category). */
  @ApiVerdictProperty('aiDetection only, once processed: the verdict of the headline image; `statusCode` keeps the spec category of its probability', false)
  aiVerdict?: AiDetectionVerdict;
  /** aiDetection only, once processed: true when no finding was counted in that image. */
  @ApiPropertyOptional({ description: 'aiDetection only, once processed: no finding was counted in the headline image (its findings of weight 0 may still be listed)', example: true })
  aiNoEvidence?: boolean;
  /** aiDetection only: the options given at creation. */
  @ApiAiDetectionOptionsProperty('aiDetection only: the options given at creation')
  aiDetectionOptions?: { generateHeatmap: boolean; generateOverlay: boolean };
  /** aiDetection only, once processed: the image of the headline probability, presigned 1 hour (WebP ≤ 1600 px, else the original). */
  @ApiPropertyOptional({
    ...PRESIGNED_URL,
    description:
      'aiDetection only, once processed: the headline image (highest probability), presigned 1 hour; a WebP copy with the longer side at most 1600 px, else the original',
    example: 'http://127.0.0.1:9000/cp-inputs/1/46/101/photo.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c',
  })
  originalImageUrl?: string | null;
  /** aiDetection only: its heatmap and overlay (when asked for and a signal gave per-region evidence), presigned 1 hour. */
  @ApiPropertyOptional({
    ...PRESIGNED_URL,
    description:
      "aiDetection only, once processed: the headline image's heatmap (WebP, longer side at most 1600 px), presigned 1 hour; null without `generateHeatmap` or per-region evidence",
    example: null,
  })
  heatmapImageUrl?: string | null;
  @ApiPropertyOptional({ ...PRESIGNED_URL, description: 'aiDetection only, once processed: the heatmap blended over the image, same rules', example: null })
  overlayImageUrl?: string | null;
  /** watermarkEmbed only. */
  @ApiPropertyOptional({ type: [String], description: 'watermarkEmbed only', example: ['recipient-0042'] })
  watermarkTexts?: string[];
  /** watermarkExtract only: the detected text, null when none or not the caller's. */
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'watermarkExtract only', example: 'recipient-0042' })
  extractedWatermarkText?: string | null;
}

/** Spec 4.12 */
export interface V2RefreshedFileView {
  fileId: string;
  fileName: string;
  uploadUrl: string;
  fileKey: string;
}

@ApiSchema({ name: 'V2RefreshUrls' })
export class V2RefreshUrlsView {
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      required: ['fileId', 'fileName', 'uploadUrl', 'fileKey'],
      properties: {
        fileId: { type: 'string', example: '1001' },
        fileName: { type: 'string', example: 'photo.jpg' },
        uploadUrl: { type: 'string', format: 'uri', example: PRESIGNED_INPUT },
        fileKey: { type: 'string', example: '1/42/1001/photo.jpg' },
      },
    },
  })
  files!: V2RefreshedFileView[];
}

/** Spec 4.13 */
@ApiSchema({ name: 'V2RecentStats' })
export class V2RecentStatsView {
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      required: ['usageDate', 'usageCount'],
      properties: { usageDate: { type: 'string', format: 'date', example: '2026-11-23' }, usageCount: { type: 'integer', example: 4 } },
    },
  })
  dailyStats!: Array<{ usageDate: string; usageCount: number }>;
  @ApiProperty({ type: [Number], example: [0, 5] })
  domain!: number[];
  @ApiProperty({ type: [Number], example: [0, 1, 2, 3, 4, 5] })
  ticks!: number[];
}

/** Spec 4.17 (path and shape chosen here: `GET /api/v2/orders/{orderId}/download-urls`). */
@ApiSchema({ name: 'V2DownloadUrls' })
export class V2DownloadUrlsView {
  @ApiProperty({ example: '42' })
  orderId!: string;
  @ApiProperty({ type: 'integer', description: 'validity of the URLs: 1 hour, or less when the order expires sooner', example: 3600 })
  expiresInSeconds!: number;
  /** The order's retention end, not the URLs' expiry (that is `expiresInSeconds`). */
  @ApiProperty({ ...DATE_TIME, description: 'end of the order\'s retention period: downloads work until then, then `ORDER_EXPIRED`', example: '2026-12-23T10:00:00.000Z' })
  expiresAt!: string;
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      required: ['fileId', 'inputFileId', 'fileName', 'downloadUrl'],
      properties: {
        fileId: { type: 'string', example: '1001-1' },
        inputFileId: { type: 'string', example: '1001' },
        fileName: { type: 'string', example: 'photo-watermarked-1001-1.jpg' },
        downloadUrl: { type: 'string', format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/1001-1.jpg?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' },
      },
    },
  })
  files!: Array<{ fileId: string; inputFileId: string; fileName: string; downloadUrl: string }>;
  @ApiProperty({ format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/42-watermarked.zip?X-Amz-Expires=3600&X-Amz-Signature=3f1a9c' })
  archiveUrl!: string;
}
