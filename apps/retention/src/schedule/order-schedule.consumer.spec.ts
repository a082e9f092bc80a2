import { ManualClock } from '@cp/clock';
import { inlineHandlerContext } from '@cp/messaging/testing';
import { HandlerContext, MessagingRuntime } from '@cp/messaging';
import { OrderStatus, OrderStatusChangedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { NewExpiry, OrderExpiryRepository } from './order-expiry.repository';
import { OrderScheduleConsumer } from './order-schedule.consumer';
import { ScheduleOrderExpiryUseCase } from './schedule-order-expiry.use-case';

type Handle = (event: OrderStatusChangedEvent, context: HandlerContext) => Promise<void>;

const GRACE_MS = 24 * 3600_000;

describe('OrderScheduleConsumer and ScheduleOrderExpiryUseCase', () => {
  const clock = new ManualClock(new Date('2026-11-05T10:00:00.000Z'));

  function consumer(): { handle: Handle; scheduled: NewExpiry[]; failedPurges: Array<NewExpiry & { purgeAt: Date }> } {
    const scheduled: NewExpiry[] = [];
    const failedPurges: Array<NewExpiry & { purgeAt: Date }> = [];
    let handle: Handle | undefined;
    const messaging = { register: (options: { handle: Handle }) => (handle = options.handle) } as unknown as MessagingRuntime;
    const expiries = {
      schedule: (_tx: Transaction, expiry: NewExpiry) => {
        scheduled.push(expiry);
        return Promise.resolve();
      },
      scheduleFailedPurge: (_tx: Transaction, expiry: NewExpiry, purgeAt: Date) => {
        failedPurges.push({ ...expiry, purgeAt });
        return Promise.resolve();
      },
    } as unknown as OrderExpiryRepository;
    const useCase = new ScheduleOrderExpiryUseCase({ retention: { sweepIntervalMs: 1000, batchSize: 10, deleteConcurrency: 1, recheckMs: 0, leaseMs: 70_000, failedOrderGraceMs: GRACE_MS } }, expiries, clock);
    new OrderScheduleConsumer(messaging, useCase).onModuleInit();
    if (!handle) {
      throw new Error('the consumer registered no handler');
    }
    return { handle, scheduled, failedPurges };
  }

  const context: HandlerContext = inlineHandlerContext('e1');

  const event = (mode: 'live' | 'test', expiresAt?: string, status: OrderStatus = 'pending'): OrderStatusChangedEvent =>
    ({ orderId: '12', accountId: '5', mode, status, ...(expiresAt ? { expiresAt } : {}) }) as OrderStatusChangedEvent;

  it('schedules test orders too (their objects are deleted when their retention ends), with their mode', async () => {
    const { handle, scheduled, failedPurges } = consumer();
    await handle(event('test', '2026-12-01T00:00:00.000Z'), context);
    await handle(event('live', '2026-12-02T00:00:00.000Z', 'complete'), context);
    expect(scheduled).toEqual([
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-01T00:00:00.000Z'), mode: 'test' },
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-02T00:00:00.000Z'), mode: 'live' },
    ]);
    expect(failedPurges).toEqual([]);
  });

  it("a failed order's objects are due the grace period after the event is handled, its expiry unchanged (live and test)", async () => {
    const { handle, scheduled, failedPurges } = consumer();
    await handle(event('live', '2026-12-01T00:00:00.000Z', 'failed'), context);
    await handle(event('test', '2026-12-01T00:00:00.000Z', 'failed'), context);
    expect(scheduled).toEqual([]);
    expect(failedPurges).toEqual([
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-01T00:00:00.000Z'), mode: 'live', purgeAt: new Date('2026-11-06T10:00:00.000Z') },
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-01T00:00:00.000Z'), mode: 'test', purgeAt: new Date('2026-11-06T10:00:00.000Z') },
    ]);
  });

  it('an event without expiresAt schedules nothing, a failed one included', async () => {
    const { handle, scheduled, failedPurges } = consumer();
    await handle(event('live'), context);
    await handle(event('live', undefined, 'failed'), context);
    expect([scheduled, failedPurges]).toEqual([[], []]);
  });
});
