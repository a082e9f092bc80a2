import { ManualClock } from '@cp/clock';
import { OutboxMessage } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { inlineTransactions } from '@cp/messaging/testing';
import { Report, ReportState } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';
import { ReportsSettings } from '../reports.config';
import { ReportOutcomes } from './report-outcomes.service';
import { MAX_REQUEUES, RequeueStuckReportsUseCase } from './requeue-stuck-reports.use-case';

const STUCK_TIMEOUT_MS = 10 * 60_000;
const start = new Date('2026-11-02T00:00:00.000Z');

function report(orderId: string, status: ReportState['status'], overrides: Partial<ReportState> = {}): ReportState {
  return {
    orderId,
    locale: 'en-US',
    accountId: '7',
    mode: 'live',
    reportType: 'watermarkDetection',
    status,
    attempt: 1,
    failedAttempts: 0,
    requeues: 0,
    orderExpired: false,
    statusChangedAt: start,
    ...overrides,
  } as ReportState;
}

/** In-memory reports behind the repository's interface, with findStuck's filter; the transaction is never touched. */
function setup(rows: ReportState[]) {
  const byKey = new Map(rows.map((r) => [`${r.orderId}/${r.locale}`, r]));
  const jobs: { subject: string; data: unknown }[] = [];
  const failed: string[] = [];
  // what a concurrent writer does between the sweep's read and its lock
  let beforeLock: (row: ReportState) => void = () => undefined;
  const repository = {
    findStuck: (before: Date, limit: number) =>
      Promise.resolve(
        [...byKey.values()]
          .filter((r) => (r.status === 'queued' || r.status === 'processing') && r.statusChangedAt < before && !r.orderExpired)
          .slice(0, limit)
          .map((r) => Report.fromState(r)),
      ),
    lock: (_tx: Transaction, orderId: string, locale: string) => {
      const row = byKey.get(`${orderId}/${locale}`) ?? null;
      if (row) beforeLock(row);
      return Promise.resolve(row ? Report.fromState(row) : null);
    },
    save: (_tx: Transaction, saved: Report, messages: readonly OutboxMessage[]) => {
      byKey.set(`${saved.state.orderId}/${saved.state.locale}`, { ...saved.state });
      jobs.push(...messages.map(({ contract, payload }) => ({ subject: contract.subject, data: payload })));
      return Promise.resolve();
    },
  } as unknown as ReportsRepository;
  const outcomes = {
    fail: (orderId: string, locale: string, attempt: number, code: string) => Promise.resolve(void failed.push(`${orderId}/${locale}#${attempt}:${code}`)),
  } as unknown as ReportOutcomes;
  const clock = new ManualClock(start);
  const settings = { stuckTimeoutMs: STUCK_TIMEOUT_MS } as ReportsSettings;
  const useCase = new RequeueStuckReportsUseCase(inlineTransactions(), repository, outcomes, clock, settings);
  return { useCase, clock, jobs, failed, byKey, setBeforeLock: (f: (row: ReportState) => void) => (beforeLock = f) };
}

describe('RequeueStuckReportsUseCase', () => {
  it('leaves reports alone until they have been queued or processing for the timeout', async () => {
    const { useCase, clock, jobs, failed } = setup([report('1', 'queued'), report('2', 'processing'), report('3', 'completed')]);
    clock.advance(STUCK_TIMEOUT_MS - 1);
    expect(await useCase.execute()).toBe(0);
    expect(jobs).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('queues the job of a stuck attempt again, counts it and restarts its timeout', async () => {
    const { useCase, clock, jobs, byKey } = setup([report('1', 'queued'), report('2', 'processing', { attempt: 3 }), report('3', 'completed')]);
    clock.advance(STUCK_TIMEOUT_MS + 1);
    expect(await useCase.execute()).toBe(2);
    expect(jobs).toEqual([
      { subject: 'job.reports.generate', data: { orderId: '1', locale: 'en-US', attempt: 1 } },
      { subject: 'job.reports.generate', data: { orderId: '2', locale: 'en-US', attempt: 3 } },
    ]);
    expect(byKey.get('2/en-US')).toMatchObject({ requeues: 1, statusChangedAt: clock.now() });
    // the next sweep within the timeout finds nothing to do
    clock.advance(60_000);
    expect(await useCase.execute()).toBe(0);
    expect(jobs).toHaveLength(2);
  });

  it(`fails an attempt re-queued ${MAX_REQUEUES} times instead of letting it hang`, async () => {
    const { useCase, clock, jobs, failed } = setup([report('1', 'processing', { requeues: MAX_REQUEUES, attempt: 2 })]);
    clock.advance(STUCK_TIMEOUT_MS + 1);
    await useCase.execute();
    expect(failed).toEqual(['1/en-US#2:REPORT_GENERATION_FAILED']);
    expect(jobs).toEqual([]);
  });

  it('does nothing for a row that moved on between the read and the lock (finished, new attempt or just changed)', async () => {
    for (const change of [
      (row: ReportState) => (row.status = 'completed'),
      (row: ReportState) => (row.attempt += 1),
      (row: ReportState) => (row.statusChangedAt = new Date(start.getTime() + STUCK_TIMEOUT_MS + 1)),
    ]) {
      const { useCase, clock, jobs, byKey, setBeforeLock } = setup([report('1', 'processing')]);
      setBeforeLock(change);
      clock.advance(STUCK_TIMEOUT_MS + 1);
      await useCase.execute();
      expect(jobs).toEqual([]);
      expect(byKey.get('1/en-US')?.requeues).toBe(0);
    }
  });
});
