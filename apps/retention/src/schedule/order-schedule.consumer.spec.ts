import { inlineHandlerContext } from '@cp/messaging/testing';
import { HandlerContext, MessagingRuntime } from '@cp/messaging';
import { OrderStatusChangedEvent } from '@cp/contracts';
import { EntityManager } from 'typeorm';
import { NewExpiry, OrderExpiryRepository } from './order-expiry.repository';
import { OrderScheduleConsumer } from './order-schedule.consumer';

type Handle = (event: OrderStatusChangedEvent, context: HandlerContext) => Promise<void>;

describe('OrderScheduleConsumer', () => {
  function consumer(): { handle: Handle; scheduled: NewExpiry[] } {
    const scheduled: NewExpiry[] = [];
    let handle: Handle | undefined;
    const messaging = { register: (options: { handle: Handle }) => (handle = options.handle) } as unknown as MessagingRuntime;
    const expiries = {
      schedule: (_manager: EntityManager, expiry: NewExpiry) => {
        scheduled.push(expiry);
        return Promise.resolve();
      },
    } as unknown as OrderExpiryRepository;
    new OrderScheduleConsumer(messaging, expiries).onModuleInit();
    if (!handle) {
      throw new Error('the consumer registered no handler');
    }
    return { handle, scheduled };
  }

  const context: HandlerContext = inlineHandlerContext('e1');

  const event = (mode: 'live' | 'test', expiresAt?: string): OrderStatusChangedEvent =>
    ({ orderId: '12', accountId: '5', mode, status: 'pending', ...(expiresAt ? { expiresAt } : {}) }) as OrderStatusChangedEvent;

  it("schedules test orders too (their objects are deleted when their retention ends), with their mode", async () => {
    const { handle, scheduled } = consumer();
    await handle(event('test', '2026-12-01T00:00:00.000Z'), context);
    await handle(event('live', '2026-12-02T00:00:00.000Z'), context);
    expect(scheduled).toEqual([
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-01T00:00:00.000Z'), mode: 'test' },
      { orderId: '12', accountId: '5', expiresAt: new Date('2026-12-02T00:00:00.000Z'), mode: 'live' },
    ]);
  });

  it('an event without expiresAt schedules nothing', async () => {
    const { handle, scheduled } = consumer();
    await handle(event('live'), context);
    expect(scheduled).toEqual([]);
  });
});
