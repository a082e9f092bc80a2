import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsISO8601, Matches, ValidateNested } from 'class-validator';
import { CallerContext } from './accounts';
import { DetectionStatus, ExtractResultView, KeyModeLike, OrderStatus, ReportLocale, ReportStatus } from './orders';
import { WatermarkOrderType } from './order-events';
import { EventSubjects } from './subjects';

export const REPORT_LOCALES: readonly ReportLocale[] = ['ko-KR', 'en-US', 'ja-JP'];

/** `evt.reports.report.status-changed`: orders keeps `reports[]` of the order view from these. */
export class ReportStatusChangedEvent {
  static readonly subject = EventSubjects.reportStatusChanged;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @IsIn(REPORT_LOCALES)
  locale!: ReportLocale;

  @IsIn(['queued', 'processing', 'completed', 'failed'])
  status!: ReportStatus;

  /** A later change wins, whatever order the events arrive in. */
  @IsISO8601()
  changedAt!: string;
}

/** `orders.report-context`: what a report is made from (only for the caller's own order). */
export class ReportContextQuery {
  @IsDefined()
  @ValidateNested()
  @Type(() => CallerContext)
  caller!: CallerContext;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

export interface ReportContextFile {
  role: 'original' | 'inspected' | 'input';
  fileName: string;
  size: number | null;
  bucket: string;
  key: string;
}

export interface ReportContextView {
  orderId: string;
  orderName: string;
  orderType: WatermarkOrderType;
  apiVersion: 'v2' | 'v3';
  mode: KeyModeLike;
  status: OrderStatus;
  /** True once the retention period has ended (files deleted or about to be). */
  expired: boolean;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string;
  result: ExtractResultView | null;
  /** How the detection was reached; null for test orders' simulated results. */
  confidence: number | null;
  method: string | null;
  detectionStatus: DetectionStatus | null;
  files: ReportContextFile[];
}
