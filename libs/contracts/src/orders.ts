import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, Matches, ValidateNested } from 'class-validator';
import { CallerScoped } from './accounts';
import type { AiDetectionResultView } from './ai-detection-orders';
import { DetectionStatus, MediaKind, ORDER_ID_PATTERN, OrderStatus, OutputStatus, ReportLocale, ReportStatus } from './order-values';

/** Spec 2.2 */
export interface InputFileView {
  fileId: string;
  uploadUrl: string | null;
}

/** Spec 2.3 */
export interface OutputView {
  fileId: string;
  inputFileId: string;
  outputIndex: number;
  watermarkText: string;
  status: OutputStatus;
  mediaKind: MediaKind;
}

/** Spec 2.4 */
export interface ExtractResultView {
  detectionStatus: DetectionStatus;
  reportSupported: boolean;
  watermarkText: string | null;
}

/** Spec 2.1: the watermark order returned in `data`. */
export interface WatermarkOrderView {
  orderId: string;
  status: OrderStatus;
  processingDelayed: boolean;
  expiresAt: string | null;
  files: InputFileView[];
  outputs: OutputView[];
  result: ExtractResultView | null;
  reports: { locale: ReportLocale; status: ReportStatus }[];
  /** AI detection orders only: the probability and its evidence, null until processed. */
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
