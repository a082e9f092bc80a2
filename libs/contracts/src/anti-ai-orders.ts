import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsISO8601, IsIn, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { CallerScoped } from './accounts';
import { ANTI_AI_STRENGTH_VALUES, AntiAiStrengthValue } from './anti-ai';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './embed-orders';
import { ORDER_STATUSES, OrderStatus } from './order-values';
import { V2CreatedFileView } from './v2';
import { CodePointLength, IsHttpsUrl, IsNestedObject, IsOptionalNotNull, IsPublicHttpsUrl, Trimmed } from './validators';

/** The image formats of embed (no PDF). BMP is accepted and fails with ANTI_AI_FORMAT_UNSUPPORTED (docs/anti-ai.md). */
export const ANTI_AI_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|bmp|tif|tiff)$/i;
export const ANTI_AI_DEFAULT_STRENGTH: AntiAiStrengthValue = 'medium';

export class AntiAiOptionsDto {
  // Each layer states a refusal (docs/anti-ai.md); the description says so where a client picks the strength.
  @ApiPropertyOptional({
    enum: ANTI_AI_STRENGTH_VALUES,
    default: ANTI_AI_DEFAULT_STRENGTH,
    description:
      'low: opt-out metadata; medium: + signed Content Credentials; high: + an invisible mark that keeps the opt-out provable with our key after the metadata is stripped (re-encodes). Each layer is a machine-readable refusal that crawlers and dataset tools may ignore, and a re-save that drops metadata removes the first two: no strength makes an image unlearnable (docs/anti-ai.md)',
  })
  @IsOptionalNotNull()
  @IsIn(ANTI_AI_STRENGTH_VALUES)
  strength?: AntiAiStrengthValue;

  @ApiPropertyOptional({ description: 'HTTPS URL of your TDMRep policy, written as tdm:policy' })
  @IsOptionalNotNull()
  @IsPublicHttpsUrl()
  tdmPolicyUrl?: string;

  @ApiPropertyOptional({ maxLength: 512, description: 'dc:rights text; a neutral "no AI training" sentence when absent' })
  @IsOptionalNotNull()
  @Trimmed()
  @IsString()
  @CodePointLength(1, 512)
  rights?: string;
}

/** Zero-copy destination of one result (spec 4.14 `outputTargets[]`). */
export class AntiAiOutputTargetDto {
  @ApiProperty({ maxLength: 255, description: 'the `fileName` of the file this target receives (file names must be unique in a zero-copy order)' })
  @IsString()
  @MaxLength(255)
  fileKey!: string;

  @ApiProperty({ description: 'presigned HTTPS PUT URL on a public address (a private, loopback or metadata address is refused with VALIDATION_FAILED, and checked again on the connected address)' })
  @IsHttpsUrl()
  @MaxLength(4096)
  url!: string;

  @ApiProperty({ format: 'date-time' })
  @IsISO8601({ strict: true })
  presignedUrlExpiresAt!: string;
}

export class AntiAiModeDto {
  @ApiProperty({ description: 'results are PUT to `outputTargets` and never kept by the service' })
  @IsBoolean()
  zeroCopy!: boolean;

  @ApiPropertyOptional({ type: [AntiAiOutputTargetDto], maxItems: 100 })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => AntiAiOutputTargetDto)
  outputTargets?: AntiAiOutputTargetDto[];
}

export class AntiAiFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.jpg', description: 'extension one of jpg, jpeg, png, webp, bmp, tif, tiff' })
  @IsString()
  @MaxLength(255)
  @Matches(ANTI_AI_FILE_NAME_PATTERN)
  fileName!: string;

  @ApiPropertyOptional({ description: 'public HTTPS URL; fetched by the service (32 MiB, no redirects); without it the file gets an upload URL' })
  @IsOptionalNotNull()
  @IsPublicHttpsUrl()
  originalFileUrl?: string;
}

/** What both anti-AI creation bodies share. */
export class AntiAiOrderBodyBase {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '1b0c6f1e-5c2a-4d7e-9b51-7a0f3e9d2c44', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 64 })
  @IsOptionalNotNull()
  @Trimmed()
  @IsString()
  @CodePointLength(1, 64)
  orderName?: string;

  @ApiPropertyOptional({ type: AntiAiOptionsDto })
  @IsOptionalNotNull()
  @IsNestedObject(() => AntiAiOptionsDto)
  options?: AntiAiOptionsDto;

  @ApiPropertyOptional({ type: AntiAiModeDto })
  @IsOptionalNotNull()
  @IsNestedObject(() => AntiAiModeDto)
  mode?: AntiAiModeDto;
}

/** Body of `POST /api/v2/orders/anti-ai` (the standard anti-AI endpoint; docs/api-decisions.md). */
export class CreateAntiAiOrderDto extends AntiAiOrderBodyBase {
  @ApiProperty({ type: [AntiAiFileDto], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => AntiAiFileDto)
  files!: AntiAiFileDto[];
}

export class AntiAiUrlFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.jpg' })
  @IsString()
  @MaxLength(255)
  @Matches(ANTI_AI_FILE_NAME_PATTERN)
  fileName!: string;

  @ApiProperty({ description: 'public HTTPS URL of the image' })
  @IsPublicHttpsUrl()
  imageUrl!: string;
}

/** Body of the deprecated `POST /api/v2/orders/anti-ai/with-urls` (spec 4.14). */
export class CreateAntiAiWithUrlsDto extends AntiAiOrderBodyBase {
  @ApiProperty({ type: [AntiAiUrlFileDto], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => AntiAiUrlFileDto)
  files!: AntiAiUrlFileDto[];

  @ApiPropertyOptional({ type: [AntiAiOutputTargetDto], description: 'spec 4.14 places the targets at the top level; `mode.outputTargets` is accepted too' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => AntiAiOutputTargetDto)
  outputTargets?: AntiAiOutputTargetDto[];
}

/** `orders.create-anti-ai` */
export class CreateAntiAiOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateAntiAiOrderDto)
  request!: CreateAntiAiOrderDto;
}

/** `orders.create-anti-ai-with-urls` */
export class CreateAntiAiWithUrlsCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateAntiAiWithUrlsDto)
  request!: CreateAntiAiWithUrlsDto;
}

// The views are classes so that the gateway's OpenAPI document generates their schemas (issue 31).

/** Response `data` of the standard endpoint: the v2 creation shape (spec 4.9) with the order's status. */
@ApiSchema({ name: 'AntiAiOrderCreated' })
export class AntiAiOrderCreatedView {
  @ApiProperty({ example: 'spring-catalogue' })
  orderName!: string;
  @ApiProperty({ example: '44' })
  orderId!: string;
  /** `pending` at creation; a replay of the creation (same key and body) answers the order's current status. */
  @ApiProperty({
    enum: [...ORDER_STATUSES],
    description: '`pending` at creation, until every file is uploaded or fetched; a repeated request (same key and body) answers the order\'s current status',
    example: 'pending',
  })
  status!: OrderStatus;
  @ApiProperty({ type: () => [V2CreatedFileView] })
  files!: V2CreatedFileView[];
}

/** Response `data` of the deprecated with-urls endpoint (spec 4.14). */
@ApiSchema({ name: 'AntiAiWithUrlsCreated' })
export class AntiAiWithUrlsCreatedView {
  @ApiProperty({ example: 'anti-ai-45' })
  orderName!: string;
  @ApiProperty({ example: '45' })
  orderId!: string;
  @ApiProperty({
    enum: [...ORDER_STATUSES],
    description: '`inProgress` at creation (spec 4.14); a repeated request (same key and body) answers the order\'s current status',
    example: 'inProgress',
  })
  status!: OrderStatus;
}
