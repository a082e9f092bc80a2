import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { KeyMode } from './accounts';
import { ORDER_TYPES, OrderType } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';

export class UploadSlotSpec {
  @Matches(/^[0-9]{1,20}$/)
  fileId!: string;

  @IsString()
  fileName!: string;

  @IsString()
  objectKey!: string;

  /** Fetched by the service instead of uploaded by the client. */
  @IsOptional()
  @IsString()
  sourceUrl?: string;
}

/** `uploads.register-slots`: called while the order is being created; idempotent per file id. */
export class RegisterSlotsCommand {
  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsIn(['live', 'test'])
  mode!: KeyMode;

  /**
   * Decides the input limit an upload is held to (the catalog's `inputLimit`). Optional only so that an orders
   * replica older than it keeps working during a rolling update; the uploads service then applies the largest limit.
   */
  @IsOptional()
  @IsIn(ORDER_TYPES)
  orderType?: OrderType;

  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => UploadSlotSpec)
  files!: UploadSlotSpec[];

  /**
   * When the order was created: a registration that arrives after the order's upload window (`UPLOAD_WINDOW_HOURS`
   * from it) registers nothing, since the order has failed by then and its URL files must not be fetched. Optional
   * only for an orders replica older than it during a rolling update.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  orderCreatedAt?: string;
}

/** `uploads.known-slots`: which of these files have an upload slot (the orders sweep of orders left without one). */
export class KnownSlotsQuery {
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(/^[0-9]{1,20}$/, { each: true })
  fileIds!: string[];
}

export interface KnownSlotsView {
  fileIds: string[];
}

/** `uploads.upload-urls`: fresh upload URLs for files still waiting for their upload. */
export class UploadUrlsQuery {
  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^[0-9]{1,20}$/, { each: true })
  fileIds!: string[];
}

export interface UploadUrlsView {
  /** fileId → URL; files that are no longer waiting are absent. */
  urls: Record<string, string>;
}

/** `uploads.record-test-upload`: the gateway's test-upload sink received a body for this token. */
export class RecordTestUploadCommand {
  @IsString()
  token!: string;

  @IsInt()
  @Min(0)
  size!: number;
}

@ApiSchema({ name: 'TestUpload' })
export class TestUploadView {
  @ApiProperty({ example: '1001' })
  fileId!: string;
  @ApiProperty({ type: 'integer', description: 'bytes received (and discarded)', example: 52311 })
  size!: number;
}

/** `evt.uploads.file.uploaded` */
export class FileUploadedEvent {
  static readonly subject = EventSubjects.fileUploaded;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  fileId!: string;

  @IsInt()
  @Min(0)
  size!: number;
}

/** `evt.uploads.file.failed`: a file given by URL could not be fetched, or an upload was over its input limit. */
export class FileFailedEvent {
  static readonly subject = EventSubjects.fileFailed;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  fileId!: string;

  /** OrderFailureCode */
  @IsString()
  code!: string;
}

/** `job.uploads.fetch`: fetch one file given by `originalFileUrl`. */
export class FetchSourceJob {
  static readonly subject = JobSubjects.uploadsFetch;

  @Matches(/^[0-9]{1,20}$/)
  fileId!: string;
}
