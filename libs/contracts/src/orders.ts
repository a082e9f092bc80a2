import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, Matches, ValidateNested } from 'class-validator';
import { CallerScoped } from './accounts';
import { OrderFailureCode } from './errors';
import { AiDetectionResultView } from './ai-detection-orders';
import {
  DETECTION_STATUSES,
  DetectionStatus,
  MEDIA_KINDS,
  MediaKind,
  ORDER_ID_PATTERN,
  ORDER_STATUSES,
  OrderStatus,
  OUTPUT_FILE_ID_PATTERN,
  OUTPUT_STATUSES,
  OutputStatus,
  REPORT_LOCALES,
  REPORT_STATUSES,
  ReportLocale,
  ReportStatus,
} from './order-values';

// The views are classes so that the gateway's OpenAPI document generates their schemas from these decorators
// (one source, issue 31): `@ApiSchema` keeps the published schema names, without the `View` suffix.

/** Spec 2.2 */
@ApiSchema({ name: 'InputFile', description: 'Input file entry (spec 2.2).' })
export class InputFileView {
  @ApiProperty({ example: '1001' })
  fileId!: string;
  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description:
      'Presigned URL for `PUT`, valid 900 seconds; only while the order is `pending` and the file waits for upload. `null` for files given by `originalFileUrl`, uploaded files, failed and expired orders.',
    example: 'http://127.0.0.1:9000/cp-inputs/1/42/1001/photo.jpg?X-Amz-Expires=900&X-Amz-Signature=3f1a9c',
  })
  uploadUrl!: string | null;
}

/** Spec 2.3 */
@ApiSchema({ name: 'Output', description: 'Embed output, one per watermark text (spec 2.3).' })
export class OutputView {
  @ApiProperty({ pattern: OUTPUT_FILE_ID_PATTERN.source, example: '1001-1' })
  fileId!: string;
  @ApiProperty({ example: '1001' })
  inputFileId!: string;
  @ApiProperty({ type: 'integer', minimum: 0, example: 0 })
  outputIndex!: number;
  @ApiProperty({ example: 'recipient-0042' })
  watermarkText!: string;
  @ApiProperty({ enum: [...OUTPUT_STATUSES], example: 'completed' })
  status!: OutputStatus;
  @ApiProperty({ enum: [...MEDIA_KINDS], example: 'image' })
  mediaKind!: MediaKind;
}

/** Spec 2.4 */
@ApiSchema({ name: 'ExtractResult', description: 'Extract result summary (spec 2.4).' })
export class ExtractResultView {
  @ApiProperty({
    enum: [...DETECTION_STATUSES],
    description:
      '`detected`: watermark found; `not_detected`: fully checked, none found; `inconclusive`: a candidate below the confidence threshold; `unsupported`: input cannot be processed (credit refunded); `error`: detection failed, not the same as no watermark (credit refunded).',
    example: 'detected',
  })
  detectionStatus!: DetectionStatus;
  @ApiProperty({ description: '`false` for images captured from a PDF', example: true })
  reportSupported!: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "Only when detected, embedded by the caller's own account and exactly one issuance record matches.",
    example: 'recipient-0042',
  })
  watermarkText!: string | null;
}

/** One requested report of an order, in the order read. */
@ApiSchema({ name: 'OrderReportEntry' })
export class OrderReportEntryView {
  @ApiProperty({ enum: [...REPORT_LOCALES], example: 'ko-KR' })
  locale!: ReportLocale;
  @ApiProperty({ enum: [...REPORT_STATUSES], example: 'completed' })
  status!: ReportStatus;
}

/**
 * Why an order failed (not in spec 2.1, which names no reason: the same public code and fixed guidance as the v2
 * detail's `errors` and the failed webhook's `errorCode`/`errorMessage`).
 */
@ApiSchema({ name: 'OrderFailure', description: 'Why the order failed: a public failure code and its fixed guidance (never processor output).' })
export class OrderFailureView {
  @ApiProperty({ enum: Object.values(OrderFailureCode), example: OrderFailureCode.ORDER_TIMEOUT })
  /** The code's value (a string union, so the OpenAPI check compares values, and clients need not import the enum). */
  errorCode!: `${OrderFailureCode}`;
  @ApiProperty({ description: 'fixed Korean guidance for the code (the same text as the v2 detail and the failed webhook)', example: '12시간 안에 파일 업로드가 완료되지 않아 주문이 실패했습니다.' })
  errorMessage!: string;
}

/** Spec 2.1: the watermark order returned in `data`. */
@ApiSchema({ name: 'WatermarkOrder', description: 'Watermark order, v3 (spec 2.1).' })
export class WatermarkOrderView {
  @ApiProperty({ pattern: ORDER_ID_PATTERN.source, example: '42' })
  orderId!: string;
  @ApiProperty({ enum: [...ORDER_STATUSES], example: 'pending' })
  status!: OrderStatus;
  @ApiProperty({ description: 'automatic retries are exhausted; the order stays `inProgress`', example: false })
  processingDelayed!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-12-23T10:00:00.000Z', description: 'after it, downloads and reports give `ORDER_EXPIRED`' })
  expiresAt!: string | null;
  @ApiProperty({ type: () => [InputFileView], description: 'request order; for extract orders index 0 is the original, 1 the file to inspect' })
  files!: InputFileView[];
  @ApiProperty({ type: () => [OutputView], description: 'one per watermark text; empty for extract orders' })
  outputs!: OutputView[];
  @ApiProperty({ type: () => ExtractResultView, nullable: true, description: '`null` for embed orders and until the result is ready' })
  result!: ExtractResultView | null;
  @ApiProperty({ type: () => [OrderReportEntryView] })
  reports!: OrderReportEntryView[];
  /** Every failed order says why; `null` for an order that never failed (a failed order that later expires keeps it). */
  @ApiProperty({
    type: () => OrderFailureView,
    nullable: true,
    description: '`null` unless the order failed; a failed order always has it, also once it has expired',
  })
  failure!: OrderFailureView | null;
  /** AI detection orders only: the probability and its evidence, null until processed and for an order that failed. */
  @ApiPropertyOptional({ type: () => AiDetectionResultView, nullable: true, description: 'AI detection orders only; `null` until processed, and for an order that failed (no verdict, whatever its other images gave)' })
  detection?: AiDetectionResultView | null;
}

/** `orders.get` */
export class GetOrderQuery extends CallerScoped {
  @Matches(ORDER_ID_PATTERN)
  orderId!: string;
}

/** Most reads one `orders.getMany` carries (a 64-read answer of complete orders stays far below NATS's 1 MB payload). */
export const ORDER_READS_PER_BATCH = 64;

/**
 * `orders.getMany`: the order reads one gateway replica received at about the same time (issue 19), answered
 * in one statement and one reply; each item is answered as `orders.get` would answer it alone.
 */
export class GetOrdersQuery {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ORDER_READS_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => GetOrderQuery)
  items!: GetOrderQuery[];
}
