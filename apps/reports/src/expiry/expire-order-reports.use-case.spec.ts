import { ManualClock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Report, ReportState } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';
import { ExpireOrderReportsUseCase } from './expire-order-reports.use-case';

const now = new Date('2026-12-01T00:00:00.000Z');

describe('ExpireOrderReportsUseCase', () => {
  it('marks the order and every report expired, and returns the PDFs to delete after the commit', async () => {
    const states: Array<Partial<ReportState>> = [
      { orderId: '42', locale: 'en-US', status: 'completed', objectBucket: 'reports', objectKey: 'k1', orderExpired: false },
      { orderId: '42', locale: 'ja-JP', status: 'queued', objectBucket: null, objectKey: null, orderExpired: false },
    ];
    const saved: ReportState[] = [];
    const expired: Array<[string, Date]> = [];
    const repository = {
      markOrderExpired: (_tx: Transaction, orderId: string, at: Date) => Promise.resolve(void expired.push([orderId, at])),
      lockAllOfOrder: () => Promise.resolve(states.map((state) => Report.fromState(state as ReportState))),
      save: (_tx: Transaction, report: Report) => Promise.resolve(void saved.push({ ...report.state })),
    } as unknown as ReportsRepository;
    const dropped = await new ExpireOrderReportsUseCase(repository, new ManualClock(now)).execute({} as Transaction, '42');
    expect(dropped).toEqual([{ bucket: 'reports', key: 'k1' }]);
    expect(expired).toEqual([['42', now]]);
    expect(saved.map((state) => [state.locale, state.orderExpired, state.objectKey])).toEqual([
      ['en-US', true, null],
      ['ja-JP', true, null],
    ]);
  });
});
