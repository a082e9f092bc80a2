import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { MediaKind } from './order-values';
import { StoredObjectRef } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';
import { IsNestedObject } from './validators';

/**
 * The ZIP of all outputs of an order (issue 32), carried by each embed job of a small order with several outputs:
 * the job that, once its own output is stored, finds every other entry stored makes it, so the order completes
 * without a package job (`OutputCompletedEvent.packageKey`).
 */
export class OutputsPackage {
  /** Every output of the order (this job's included); `fileName` is the entry name inside the archive. */
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => StoredObjectRef)
  entries!: StoredObjectRef[];

  @IsNestedObject(() => StoredObjectRef)
  output!: StoredObjectRef;
}

/** `job.watermark.embed`: one output of an embed order. */
export class EmbedJob {
  static readonly subject = JobSubjects.watermarkEmbed;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @Matches(/^[0-9]+-[0-9]+$/)
  outputFileId!: string;

  @IsString()
  text!: string;

  @IsIn(['image', 'pdf'])
  mediaKind!: MediaKind;

  @IsNestedObject(() => StoredObjectRef)
  input!: StoredObjectRef;

  @IsNestedObject(() => StoredObjectRef)
  output!: StoredObjectRef;

  /** Mark version: `v2` for orders made through the v2 API (v3 extract never detects those). Absent: `v3`. */
  @IsOptional()
  @IsIn(['v2', 'v3'])
  algorithm?: 'v2' | 'v3';

  /** Orders of a few outputs (orders' `PACKAGE_WITH_OUTPUTS_MAX`): the ZIP this job makes if its output is the last one stored. */
  @IsOptional()
  @IsNestedObject(() => OutputsPackage)
  package?: OutputsPackage;
}

/** `job.watermark.package`: the ZIP of an order with two or more outputs (the same entries and key), streamed into storage. */
export class PackageJob extends OutputsPackage {
  static readonly subject = JobSubjects.watermarkPackage;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

export class OutputRef {
  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]+-[0-9]+$/)
  outputFileId!: string;
}

/** `evt.watermark.output.processing` */
export class OutputProcessingEvent extends OutputRef {
  static readonly subject = EventSubjects.outputProcessing;
}

/** `evt.watermark.output.completed` */
export class OutputCompletedEvent extends OutputRef {
  static readonly subject = EventSubjects.outputCompleted;

  @IsString()
  objectKey!: string;

  @IsInt()
  @Min(0)
  size!: number;

  /** The job found every other output stored and wrote the order's ZIP (`EmbedJob.package`) under this key. */
  @IsOptional()
  @IsString()
  packageKey?: string;
}

/** `evt.watermark.output.failed`: a permanent failure (the file can never be processed). */
export class OutputFailedEvent extends OutputRef {
  static readonly subject = EventSubjects.outputFailed;

  /** OrderFailureCode */
  @IsString()
  code!: string;
}

/** `evt.watermark.output.delayed`: automatic retries are exhausted; the order waits for recovery. */
export class OutputDelayedEvent extends OutputRef {
  static readonly subject = EventSubjects.outputDelayed;
}

/** `evt.watermark.order.delayed`: a whole-order job (extract) exhausted its automatic retries. */
export class OrderDelayedEvent {
  static readonly subject = EventSubjects.orderDelayed;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

/** `evt.watermark.package.completed` */
export class PackageCompletedEvent {
  static readonly subject = EventSubjects.packageCompleted;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsString()
  objectKey!: string;
}
