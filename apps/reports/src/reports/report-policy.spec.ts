import { DomainException, ErrorCode, ReportContextView, V2_RETIREMENT_AT } from '@cp/contracts';
import { assertCanStartAttempt, assertNotExpired, reportFileName, reportTypeOf, toReportView } from './report-policy';
import { ReportEntity } from './report.entity';

function context(overrides: Partial<ReportContextView> = {}): ReportContextView {
  return {
    orderId: '42',
    orderName: 'extract-42',
    orderType: 'watermarkExtract',
    apiVersion: 'v3',
    mode: 'live',
    status: 'complete',
    expired: false,
    createdAt: '2026-11-01T00:00:00.000Z',
    completedAt: '2026-11-01T00:01:00.000Z',
    expiresAt: '2026-12-01T00:00:00.000Z',
    result: { detectionStatus: 'detected', reportSupported: true, watermarkText: 'x' },
    confidence: 0.9,
    method: 'registered',
    detectionStatus: 'detected',
    files: [],
    ...overrides,
  };
}

function row(overrides: Partial<ReportEntity> = {}): ReportEntity {
  return Object.assign(new ReportEntity(), {
    orderId: '42',
    locale: 'en-US',
    reportType: 'watermarkDetection',
    status: 'queued',
    attempt: 1,
    failedAttempts: 0,
    failureCode: null,
    failureRetryable: null,
    orderExpired: false,
    ...overrides,
  });
}

function codeOf(action: () => unknown): ErrorCode | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof DomainException ? error.code : undefined;
  }
}

const before = new Date(V2_RETIREMENT_AT.getTime() - 1);

describe('report policy', () => {
  it('takes the report type of an order type from the catalog: none for embed and anti-AI orders or an unknown type', () => {
    expect(['watermarkEmbed', 'watermarkExtract', 'aiDetection', 'antiAi', 'toString', 'unknown'].map(reportTypeOf)).toEqual([null, 'watermarkDetection', 'aiDetection', null, null, null]);
    expect(codeOf(() => assertCanStartAttempt(context({ orderType: 'antiAi' }), before))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('accepts a complete, reportable extract order', () => {
    expect(assertCanStartAttempt(context(), before)).toBe('watermarkDetection');
  });

  it('accepts a completed AI detection order with its analyses, and refuses one without', () => {
    const analysed = context({
      orderType: 'aiDetection',
      result: null,
      detectionStatus: null,
      aiDetection: {
        probability: 0.9,
        category: 'likely_ai',
        verdict: 'generated',
        noEvidence: false,
        simulated: false,
        files: [
          {
            fileName: 'a.png',
            input: { role: 'input', fileName: 'a.png', size: 10, bucket: 'in', key: 'k' },
            probability: 0.9,
            category: 'likely_ai',
            verdict: 'generated',
            noEvidence: false,
            statement: 's',
            evidence: [],
            heatmapNote: null,
            heatmap: null,
          },
        ],
      },
    });
    expect(assertCanStartAttempt(analysed, before)).toBe('aiDetection');
    expect(codeOf(() => assertCanStartAttempt({ ...analysed, aiDetection: null }, before))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => assertCanStartAttempt({ ...analysed, status: 'inProgress' }, before))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it.each([
    ['an embed order', context({ orderType: 'watermarkEmbed' })],
    ['an order in progress', context({ status: 'inProgress', result: null })],
    ['a failed order', context({ status: 'failed', result: null })],
    ['a result without report support', context({ result: { detectionStatus: 'detected', reportSupported: false, watermarkText: null } })],
  ])('refuses %s with VALIDATION_FAILED', (_name, order) => {
    expect(codeOf(() => assertCanStartAttempt(order, before))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('refuses new reports for v2 orders from the retirement instant on, not before', () => {
    expect(assertCanStartAttempt(context({ apiVersion: 'v2' }), before)).toBe('watermarkDetection');
    expect(codeOf(() => assertCanStartAttempt(context({ apiVersion: 'v2' }), V2_RETIREMENT_AT))).toBe(ErrorCode.WATERMARK_V2_API_SUNSET);
    expect(assertCanStartAttempt(context({ apiVersion: 'v3' }), V2_RETIREMENT_AT)).toBe('watermarkDetection');
  });

  it('answers ORDER_EXPIRED when the order is past retention or was announced expired', () => {
    expect(codeOf(() => assertNotExpired(context({ expired: true }), null))).toBe(ErrorCode.ORDER_EXPIRED);
    expect(codeOf(() => assertNotExpired(context(), row({ orderExpired: true, status: 'completed' })))).toBe(ErrorCode.ORDER_EXPIRED);
    expect(codeOf(() => assertNotExpired(context(), row()))).toBeUndefined();
    expect(codeOf(() => assertNotExpired(context(), null, true))).toBe(ErrorCode.ORDER_EXPIRED);
  });

  it('shows download (with the stored PDF\'s hash) only when completed and failure only when failed', () => {
    expect(toReportView(row({ status: 'completed', pdfSha256: 'ab'.repeat(32) }), 'https://s3/x', 300)).toEqual({
      orderId: '42',
      reportType: 'watermarkDetection',
      locale: 'en-US',
      status: 'completed',
      download: { url: 'https://s3/x', expiresInSeconds: 300, sha256: 'ab'.repeat(32) },
      failure: null,
    });
    expect(toReportView(row({ status: 'processing' }), 'https://s3/x', 300)).toMatchObject({ download: null, failure: null });
    expect(toReportView(row({ status: 'failed', failureCode: 'REPORT_NOT_AVAILABLE', failureRetryable: false }), null, 300)).toMatchObject({
      download: null,
      failure: { code: 'REPORT_NOT_AVAILABLE', retryable: false },
    });
  });

  it('names the download <order name>-report-<locale>.pdf', () => {
    expect(reportFileName('extract-42', 'ja-JP')).toBe('extract-42-report-ja-JP.pdf');
  });
});
