import { ManualClock } from '@cp/clock';
import { ErrorCode } from '@cp/contracts';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from '../orders/object-urls.service';
import { OrderAccessService } from '../orders/order-access.service';
import { OrdersRepository } from '../orders/orders.repository';
import { KeyModesService } from '../sandbox/key-modes.service';
import { V2OrdersQueryService } from './v2-orders-query.service';

describe('V2OrdersQueryService.recentStats', () => {
  const asked: Array<{ from: string; to: string }> = [];
  const repository = {
    countCreatedPerDay: (_accountId: string, _mode: string, from: Date, to: Date) => {
      asked.push({ from: from.toISOString(), to: to.toISOString() });
      return Promise.resolve(new Map([[from.toISOString().slice(0, 10), 3]]));
    },
  } as unknown as OrdersRepository;
  const service = new V2OrdersQueryService(
    repository,
    {} as OrderAccessService,
    {} as OrderTypeRegistry,
    {} as KeyModesService,
    {} as ObjectUrlsService,
    new ManualClock(new Date('2026-11-29T15:30:00.000Z')),
  );
  const days = async (date?: string): Promise<string[]> =>
    (await service.recentStats({ caller: { accountId: '7', mode: 'live' }, ...(date ? { date } : {}) })).dailyStats.map((day) => day.usageDate);

  beforeEach(() => {
    asked.length = 0;
  });

  it('counts the 7 UTC days ending on the date asked, or on today', async () => {
    expect(await days()).toEqual(['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29']);
    expect(asked).toEqual([{ from: '2026-11-23T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' }]);
    expect(await days('2024-03-01')).toEqual(['2024-02-24', '2024-02-25', '2024-02-26', '2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
  });

  it('keeps the years 0–99 as they are (Date.UTC made 0099-03-01 a week of 1999)', async () => {
    expect(await days('0099-03-01')).toEqual(['0099-02-23', '0099-02-24', '0099-02-25', '0099-02-26', '0099-02-27', '0099-02-28', '0099-03-01']);
    expect((await days('0001-01-01'))[6]).toBe('0001-01-01');
    expect(asked[0]).toEqual({ from: '0099-02-23T00:00:00.000Z', to: '0099-03-02T00:00:00.000Z' });
  });

  it('refuses a date whose week reaches before the year 0000, which YYYY-MM-DD cannot write (0000-01-01 gave "-000001-12")', async () => {
    expect(await days('0000-01-07')).toEqual(['0000-01-01', '0000-01-02', '0000-01-03', '0000-01-04', '0000-01-05', '0000-01-06', '0000-01-07']);
    await expect(days('0000-01-06')).rejects.toMatchObject({ code: ErrorCode.VALIDATION_FAILED });
    await expect(days('0000-01-01')).rejects.toMatchObject({ code: ErrorCode.VALIDATION_FAILED });
  });
});
