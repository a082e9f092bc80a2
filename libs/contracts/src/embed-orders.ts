import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { CallerScoped, OrderScoped } from './accounts';
import { CodePointLength, IsNestedObject, IsOptionalNotNull, IsPublicHttpsUrl } from './validators';

export const EMBED_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'tif', 'tiff', 'pdf'] as const;
export const EMBED_FILE_NAME_PATTERN = /^[^/\\\u0000-\u001f]+\.(jpg|jpeg|png|webp|bmp|tif|tiff|pdf)$/i;

/** Spec 4.1 wording, shared by every order creation body. */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'a new UUID per new order, reused only when retrying the same request; the same key with a different body gives 409 WATERMARK_V2_CONFLICT';

export class WatermarkTextDto {
  @ApiProperty({ minLength: 1, maxLength: 1000, example: 'recipient-0042' })
  @IsString()
  @CodePointLength(1, 1000)
  text!: string;
}

export class EmbedFileDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.jpg', description: `extension one of ${EMBED_EXTENSIONS.join(', ')}` })
  @IsString()
  @MaxLength(255)
  @Matches(EMBED_FILE_NAME_PATTERN)
  fileName!: string;

  @ApiPropertyOptional({ description: 'public HTTPS URL; fetched by the service (32 MiB, no redirects)' })
  @IsOptionalNotNull()
  @IsPublicHttpsUrl()
  originalFileUrl?: string;

  @ApiProperty({ type: [WatermarkTextDto], minItems: 1, maxItems: 10 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => WatermarkTextDto)
  watermarks!: WatermarkTextDto[];
}

/** Body of `POST /api/v3/orders/wtr-embed` (spec 4.1). */
export class CreateEmbedOrderDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', description: IDEMPOTENCY_KEY_DESCRIPTION })
  @IsString()
  @Length(1, 255)
  idempotencyKey!: string;

  @ApiProperty({ type: [EmbedFileDto], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => EmbedFileDto)
  files!: EmbedFileDto[];
}

/** `orders.create-embed` */
export class CreateEmbedOrderCommand extends CallerScoped {
  @IsDefined()
  @IsNestedObject(() => CreateEmbedOrderDto)
  request!: CreateEmbedOrderDto;
}

/** `orders.download` (whole order) and `orders.download-output` (one output). */
export class DownloadQuery extends OrderScoped {
  @IsOptional()
  @Matches(/^[0-9]+-[0-9]+$/)
  outputFileId?: string;
}

/** Spec 2.9 */
@ApiSchema({ name: 'Download', description: 'Download resource (spec 2.9): one file, or a ZIP `<orderId>-watermarked.zip` for two or more outputs.' })
export class DownloadView {
  @ApiProperty({ format: 'uri', example: 'http://127.0.0.1:9000/cp-outputs/1/42/42-watermarked.zip?X-Amz-Expires=300&X-Amz-Signature=3f1a9c' })
  downloadUrl!: string;
  @ApiProperty({ type: 'integer', example: 300 })
  expiresInSeconds!: number;
}
