import {
  DomainException,
  isV2Retired,
  orderTypeEntry,
  ErrorCode,
  ReportContextView,
  ReportLocale,
  ReportType,
  ReportView,
} from '@cp/contracts';
import { ReportState } from '../domain/report';

/** Which report an order type gets (the catalog of order types); null when the type has none or is unknown. */
export function reportTypeOf(orderType: string): ReportType | null {
  return orderTypeEntry(orderType)?.reportType ?? null;
}

/** Spec 2.6: `<order name>-report-<locale>.pdf` */
export function reportFileName(orderName: string, locale: ReportLocale): string {
  return `${orderName}-report-${locale}.pdf`;
}

/** After retention (by the order's clock, or announced by the orders service) nothing about the report is served. */
export function assertNotExpired(context: ReportContextView, row: Pick<ReportState, 'orderExpired'> | null, announcedExpired = false): void {
  if (context.expired || announcedExpired || row?.orderExpired) {
    throw new DomainException(ErrorCode.ORDER_EXPIRED, `order ${context.orderId} is past its retention period`);
  }
}

/** The rules a new attempt must pass (a first request or a retry after a retryable failure). */
export function assertCanStartAttempt(context: ReportContextView, now: Date): ReportType {
  const reportType = reportTypeOf(context.orderType);
  if (!reportType) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, `order type ${context.orderType} has no report`);
  }
  // Spec 9.4: from the retirement new reports for v2 orders are refused; existing ones stay readable.
  if (context.apiVersion === 'v2' && isV2Retired(now)) {
    throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET, 'new reports for v2 orders ended with the v2 retirement');
  }
  if (!hasReportableResult(context, reportType)) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, `order ${context.orderId} has no reportable result`);
  }
  return reportType;
}

/** A completed order whose result a report can state: an extract result that supports one, or the AI analyses. */
export function hasReportableResult(context: ReportContextView, reportType: ReportType): boolean {
  if (context.status !== 'complete') {
    return false;
  }
  return reportType === 'aiDetection' ? (context.aiDetection?.files.length ?? 0) > 0 : context.result?.reportSupported === true && context.detectionStatus !== null;
}

export function toReportView(row: Readonly<ReportState>, downloadUrl: string | null, expiresInSeconds: number): ReportView {
  return {
    orderId: row.orderId,
    reportType: row.reportType,
    locale: row.locale,
    status: row.status,
    // Every completed report has its PDF's hash (`Report.complete` records it with the object).
    download: row.status === 'completed' && downloadUrl && row.pdfSha256 ? { url: downloadUrl, expiresInSeconds, sha256: row.pdfSha256 } : null,
    failure:
      row.status === 'failed'
        ? { code: row.failureCode ?? 'REPORT_GENERATION_FAILED', retryable: row.failureRetryable === true }
        : null,
  };
}
