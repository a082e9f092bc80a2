import { ManualClock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { inlineHandlerContext } from '@cp/messaging/testing';
import { ObjectStorage } from '@cp/storage';
import { Report, ReportState } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';
import { ExpireOrderReportsUseCase } from './expire-order-reports.use-case';

const now = new Date('2026-12-01T00:00:00.000Z');

function setup(states: Array<Partial<ReportState>>) {
  const saved: ReportState[] = [];
  const expired: string[] = [];
  const removed: string[] = [];
  const steps: string[] = [];
  const repository = {
    markOrderExpired: (_tx: Transaction, orderId: string) => Promise.resolve(void expired.push(orderId)),
    lockAllOfOrder: () => Promise.resolve(states.map((state) => Report.fromState(state as ReportState))),
    save: (_tx: Transaction, report: Report) => Promise.resolve(void saved.push({ ...report.state })),
  } as unknown as ReportsRepository;
  const storage = {
    remove: (_bucket: string, keys: string[]) => {
      steps.push('remove');
      removed.push(...keys);
      return keys[0] === 'unreachable' ? Promise.reject(new Error('S3 down')) : Promise.resolve();
    },
  } as unknown as ObjectStorage;
  const useCase = new ExpireOrderReportsUseCase(repository, storage, new ManualClock(now));
  return { useCase, saved, expired, removed, steps };
}

describe('ExpireOrderReportsUseCase', () => {
  it('marks the order and every report expired, then deletes the PDFs after the commit (a failed delete is only logged)', async () => {
    const { useCase, saved, expired, removed, steps } = setup([
      { orderId: '42', locale: 'en-US', status: 'completed', objectBucket: 'reports', objectKey: 'unreachable', orderExpired: false },
      { orderId: '42', locale: 'ko-KR', status: 'completed', objectBucket: 'reports', objectKey: 'k2', orderExpired: false },
      { orderId: '42', locale: 'ja-JP', status: 'queued', objectBucket: null, objectKey: null, orderExpired: false },
    ]);
    const context = inlineHandlerContext();
    await useCase.execute('42', { transaction: (work) => context.transaction(work).then((done) => (steps.push('commit'), done)) });
    expect(expired).toEqual(['42']);
    expect(saved.map((state) => [state.locale, state.orderExpired, state.objectKey])).toEqual([
      ['en-US', true, null],
      ['ko-KR', true, null],
      ['ja-JP', true, null],
    ]);
    expect(removed).toEqual(['unreachable', 'k2']);
    expect(steps).toEqual(['commit', 'remove', 'remove']);
  });

  it('deletes nothing when the event was already handled', async () => {
    const { useCase, removed, expired } = setup([{ orderId: '42', locale: 'en-US', status: 'completed', objectBucket: 'reports', objectKey: 'k1', orderExpired: false }]);
    await useCase.execute('42', { transaction: () => Promise.resolve(false) });
    expect([removed, expired]).toEqual([[], []]);
  });
});
