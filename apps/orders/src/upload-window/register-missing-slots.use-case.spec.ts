import { ManualClock } from '@cp/clock';
import { DomainException, ErrorCode } from '@cp/contracts';
import { RpcUnavailableError } from '@cp/messaging';
import { Order } from '../domain/order';
import { OrdersRepository, WaitingOrderRef } from '../orders/orders.repository';
import { UploadsClient } from '../orders/uploads.client';
import { RegisterMissingSlotsUseCase } from './register-missing-slots.use-case';

const pending = (id: string): WaitingOrderRef => ({ id, accountId: '7', mode: 'live', cursor: { createdAt: `2026-11-29 00:00:0${id}+00`, id }, awaitingFileId: `${id}0` });

/** Fakes of the two collaborators: orders `1` and `2` have no slots; what registering each does is set per test. */
function setup(registration: (orderId: string) => Promise<Record<string, string>>) {
  const asked: Array<{ after: string; until: Date }> = [];
  const rows = [pending('1'), pending('2')];
  const orders = {
    waitingCreatedBetween: (after: { id: string }, until: Date) => {
      asked.push({ after: after.id, until });
      return Promise.resolve(rows.filter((row) => Number(row.id) > Number(after.id)));
    },
    findOwned: (id: string) => Promise.resolve({ id } as unknown as Order),
  } as unknown as OrdersRepository;
  const registered: string[] = [];
  const uploads = {
    knownSlots: () => Promise.resolve([]),
    registerSlots: async (order: Order) => {
      const urls = await registration(order.id);
      registered.push(order.id);
      return urls;
    },
  } as unknown as UploadsClient;
  return { sweep: new RegisterMissingSlotsUseCase(orders, uploads, new ManualClock()), asked, registered };
}

describe('RegisterMissingSlotsUseCase', () => {
  it('registers every order without slots, then moves its cursor past them', async () => {
    const { sweep, asked, registered } = setup(() => Promise.resolve({}));
    expect(await sweep.execute()).toBe(2);
    expect(await sweep.execute()).toBe(0);
    expect(registered).toEqual(['1', '2']);
    expect(asked.map((call) => call.after)).toEqual(['0', '2']);
  });

  it('an order the uploads service refuses is logged and passed, never holding the orders after it', async () => {
    const { sweep, registered } = setup((orderId) => (orderId === '1' ? Promise.reject(new DomainException(ErrorCode.VALIDATION_FAILED, 'refused')) : Promise.resolve({})));
    expect(await sweep.execute()).toBe(2);
    expect(registered).toEqual(['2']);
    expect(await sweep.execute()).toBe(0);
  });

  it('an outage holds the cursor: the same orders are looked at again next time', async () => {
    let down = true;
    const { sweep, asked, registered } = setup(() => (down ? Promise.reject(new RpcUnavailableError('uploads.register-slots')) : Promise.resolve({})));
    await expect(sweep.execute()).rejects.toBeInstanceOf(RpcUnavailableError);
    down = false;
    expect(await sweep.execute()).toBe(2);
    expect(asked.map((call) => call.after)).toEqual(['0', '0']);
    expect(registered).toEqual(['1', '2']);
  });
});
