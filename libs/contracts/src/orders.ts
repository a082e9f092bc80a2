import type { AiDetectionResultView } from './ai-detection-orders';
import { Matches } from 'class-validator';
import { CallerScoped } from './accounts';

export const ORDER_ID_PATTERN = /^[0-9]{1,20}$/;
export const OUTPUT_FILE_ID_PATTERN = /^[0-9]+-[0-9]+$/;

export type OrderStatus = 'pending' | 'inProgress' | 'complete' | 'failed' | 'expired';
export type OutputStatus = 'pending' | 'queued' | 'processing' | 'completed' | 'failed' | 'retry_required';
export type DetectionStatus = 'detected' | 'not_detected' | 'inconclusive' | 'unsupported' | 'error';
export type ReportLocale = 'ko-KR' | 'en-US' | 'ja-JP';
export type ReportStatus = 'queued' | 'processing' | 'completed' | 'failed';
export type MediaKind = 'image' | 'pdf';
export type KeyModeLike = 'live' | 'test';

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
