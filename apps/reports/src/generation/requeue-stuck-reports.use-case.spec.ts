import { ManualClock } from '@cp/clock';
import { OutboxWriter } from '@cp/messaging';
import { EntityManager } from 'typeorm';
import { ReportEntity } from '../reports/report.entity';
import { ReportsRepository } from '../reports/reports.repository';
import { ReportsSettings } from '../reports.config';
import { ReportOutcomes } from './report-outcomes.service';
import { MAX_REQUEUES, RequeueStuckReportsUseCase } from './requeue-stuck-reports.use-case';

const STUCK_TIMEOUT_MS = 10 * 60_000;
const start = new Date('2026-11-02T00:00:00.000Z');

function report(orderId: string, status: ReportEntity['status'], overrides: Partial<ReportEntity> = {}): ReportEntity {
  return Object.assign(new ReportEntity(), {
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
  });
}

/** In-memory rows behind the repository's interface, with findStuck's filter; the manager is never touched. */
function setup(rows: ReportEntity[]) {
  const byKey = new Map(rows.map((r) => [`${r.orderId}/${r.locale}`, r]));
  const jobs: { subject: string; data: unknown }[] = [];
  const failed: string[] = [];
  // what a concurrent writer does between the sweep's read and its lock
  let beforeLock: (row: ReportEntity) => void = () => undefined;
  const repository = {
    findStuck: (before: Date, limit: number) =>
      Promise.resolve(
        [...byKey.values()]
          .filter((r) => (r.status === 'queued' || r.status === 'processing') && r.statusChangedAt < before && !r.orderExpired)
          .slice(0, limit)
          .map((r) => Object.assign(new ReportEntity(), r)),
      ),
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager),
    lock: (_m: EntityManager, orderId: string, locale: string) => {
      const row = byKey.get(`${orderId}/${locale}`) ?? null;
      if (row) beforeLock(row);
      return Promise.resolve(row);
    },
    save: () => Promise.resolve(),
  } as unknown as ReportsRepository;
  const outbox = { add: (_m: EntityManager, { subject }: { subject: string }, data: unknown) => Promise.resolve(void jobs.push({ subject, data })) } as unknown as OutboxWriter;
  const outcomes = {
    fail: (orderId: string, locale: string, attempt: number, code: string) => Promise.resolve(void failed.push(`${orderId}/${locale}#${attempt}:${code}`)),
  } as unknown as ReportOutcomes;
  const clock = new ManualClock(start);
  const settings = { stuckTimeoutMs: STUCK_TIMEOUT_MS } as ReportsSettings;
  const useCase = new RequeueStuckReportsUseCase(repository, outbox, outcomes, clock, settings);
  return { useCase, clock, jobs, failed, byKey, setBeforeLock: (f: (row: ReportEntity) => void) => (beforeLock = f) };
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
      (row: ReportEntity) => (row.status = 'completed'),
      (row: ReportEntity) => (row.attempt += 1),
      (row: ReportEntity) => (row.statusChangedAt = new Date(start.getTime() + STUCK_TIMEOUT_MS + 1)),
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
