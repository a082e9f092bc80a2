import { ManualClock } from '@cp/clock';
import { ErrorCode, Events, OutboxMessage, ReportContextView, ReportStatusChangedEvent, RequestReportCommand } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { inlineTransactions } from '@cp/messaging/testing';
import { Report, ReportState } from '../domain/report';
import { OrderContextClient } from './order-context.client';
import { ReportViews } from './report-views.service';
import { ReportsRepository } from './reports.repository';
import { RequestReportUseCase } from './request-report.use-case';
import { toReportView } from './report-policy';

const context: ReportContextView = {
  orderId: '42',
  orderName: 'watermark-extract-42',
  orderType: 'watermarkExtract',
  apiVersion: 'v3',
  mode: 'live',
  status: 'complete',
  expired: false,
  createdAt: '2026-11-01T00:00:00.000Z',
  completedAt: '2026-11-01T00:01:00.000Z',
  expiresAt: '2026-12-01T00:00:00.000Z',
  result: { detectionStatus: 'detected', reportSupported: true, watermarkText: null },
  confidence: 1,
  method: 'registered',
  detectionStatus: 'detected',
  files: [],
};

/** In-memory reports behind the repository's interface, and the events saved with them; the transaction is never touched. */
function setup(orderContext: ReportContextView = context) {
  const rows = new Map<string, ReportState>();
  const events: string[] = [];
  const jobs: unknown[] = [];
  const key = (orderId: string, locale: string) => `${orderId}/${locale}`;
  const stored = (orderId: string, locale: string) => {
    const state = rows.get(key(orderId, locale));
    return Promise.resolve(state ? Report.fromState(state) : null);
  };
  const record = (report: Report, messages: readonly OutboxMessage[]) => {
    rows.set(key(report.state.orderId, report.state.locale), { ...report.state });
    for (const { contract, payload } of messages) {
      if (contract.subject === Events.reportStatusChanged.subject) {
        const { locale, status } = payload as ReportStatusChangedEvent;
        events.push(`${locale}:${status}:${report.state.attempt}`);
      } else {
        jobs.push({ subject: contract.subject, data: payload });
      }
    }
  };
  const repository = {
    find: stored,
    isOrderExpired: () => Promise.resolve(false),
    lock: (_tx: Transaction, orderId: string, locale: string) => stored(orderId, locale),
    insertIfAbsent: (_tx: Transaction, report: Report, messages: readonly OutboxMessage[]) => {
      if (rows.has(key(report.state.orderId, report.state.locale))) {
        return Promise.resolve(false);
      }
      record(report, messages);
      return Promise.resolve(true);
    },
    save: (_tx: Transaction, report: Report, messages: readonly OutboxMessage[]) => Promise.resolve(record(report, messages)),
  } as unknown as ReportsRepository;
  const views = { view: (row: ReportState) => Promise.resolve(toReportView(row, 'https://s3/report', 300)) } as unknown as ReportViews;
  const orders = { get: () => Promise.resolve(orderContext) } as unknown as OrderContextClient;
  const useCase = new RequestReportUseCase(orders, inlineTransactions(), repository, views, new ManualClock(new Date('2026-11-02T00:00:00.000Z')));
  return { useCase, rows, events, jobs };
}

const command: RequestReportCommand = { caller: { accountId: '7', mode: 'live' }, orderId: '42', locale: 'ko-KR' };

describe('RequestReportUseCase', () => {
  it('queues the first attempt: row, status event and job together', async () => {
    const { useCase, events, jobs } = setup();
    const result = await useCase.execute(command);
    expect(result).toMatchObject({ started: true, report: { status: 'queued', reportType: 'watermarkDetection', locale: 'ko-KR' } });
    expect(events).toEqual(['ko-KR:queued:1']);
    expect(jobs).toEqual([{ subject: 'job.reports.generate', data: { orderId: '42', locale: 'ko-KR', attempt: 1 } }]);
  });

  it('returns the current report while queued, processing or completed', async () => {
    const { useCase, rows, jobs } = setup();
    await useCase.execute(command);
    for (const status of ['queued', 'processing', 'completed'] as const) {
      Object.assign(rows.get('42/ko-KR') ?? {}, { status });
      const again = await useCase.execute(command);
      expect(again.started).toBe(false);
      expect(again.report.status).toBe(status);
    }
    expect(jobs).toHaveLength(1);
  });

  it('starts attempt 2 after a retryable failure, but not after a final one', async () => {
    const { useCase, rows, jobs } = setup();
    await useCase.execute(command);
    Object.assign(rows.get('42/ko-KR') ?? {}, { status: 'failed', failureCode: 'REPORT_GENERATION_FAILED', failureRetryable: true, failedAttempts: 1 });
    expect(await useCase.execute(command)).toMatchObject({ started: true, report: { status: 'queued', failure: null } });
    expect(rows.get('42/ko-KR')?.attempt).toBe(2);
    Object.assign(rows.get('42/ko-KR') ?? {}, { status: 'failed', failureCode: 'REPORT_GENERATION_FAILED', failureRetryable: false, failedAttempts: 3 });
    expect(await useCase.execute(command)).toMatchObject({ started: false, report: { failure: { retryable: false } } });
    expect(jobs).toHaveLength(2);
  });

  it('refuses an order without a reportable result and an expired one', async () => {
    const notReportable = setup({ ...context, result: { detectionStatus: 'unsupported', reportSupported: false, watermarkText: null } });
    await expect(notReportable.useCase.execute(command)).rejects.toMatchObject({ code: ErrorCode.VALIDATION_FAILED });
    expect(notReportable.rows.size).toBe(0);
    const expired = setup({ ...context, expired: true });
    await expect(expired.useCase.execute(command)).rejects.toMatchObject({ code: ErrorCode.ORDER_EXPIRED });
  });

  it('keeps existing v2 reports readable after the retirement, but creates no new ones', async () => {
    const v2 = setup({ ...context, apiVersion: 'v2' });
    await expect(v2.useCase.execute(command)).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_API_SUNSET });
    const existing = { orderId: '42', locale: 'ko-KR', reportType: 'watermarkDetection', status: 'completed', attempt: 1 } as ReportState;
    v2.rows.set('42/ko-KR', existing);
    expect(await v2.useCase.execute(command)).toMatchObject({ started: false, report: { status: 'completed' } });
  });
});
