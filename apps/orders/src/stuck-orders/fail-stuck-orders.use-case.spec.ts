// The sweep's rule without a database: the deadline it asks for, the transition it applies, the batch it saves.
import { ManualClock } from '@cp/clock';
import { EventSubjects, OutboxMessage } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { Order, OrderState } from '../domain/order';
import { OrdersConfig } from '../orders.config';
import { OrdersRepository } from '../orders/orders.repository';
import { FailStuckOrdersUseCase } from './fail-stuck-orders.use-case';

const HOUR = 3600_000;
const NOW = new Date('2026-11-25T12:00:00.000Z');

function stuckOrder(id: string, updatedAt: Date): Order {
  const state: OrderState = {
    id,
    accountId: '9',
    mode: 'live',
    type: 'watermarkEmbed',
    apiVersion: 'v3',
    status: 'inProgress',
    processingDelayed: true,
    failureCode: null,
    creditsCharged: 3,
    packageKey: null,
    options: null,
    typeResult: null,
    expiresAt: new Date(NOW.getTime() + 720 * HOUR),
    completedAt: null,
    failedAt: null,
    createdAt: updatedAt,
    updatedAt,
  };
  return new Order(state, [], [{ fileId: `${id}-1`, inputFileId: id, inputPosition: 0, outputIndex: 0, watermarkText: 't', status: 'queued', mediaKind: 'image', objectKey: null, failureCode: null }]);
}

describe('FailStuckOrdersUseCase', () => {
  const config = { stuckOrders: { maxAgeMs: 6 * HOUR, sweepIntervalMs: 60_000 } } as OrdersConfig;
  const tx = {} as Transaction;
  const transactions = { run: <T>(work: (handle: Transaction) => Promise<T>) => work(tx) } as TransactionRepository;

  it('claims inProgress orders unchanged since now minus the max age, fails each with PROCESSING_TIMEOUT and saves it with its refund and events', async () => {
    const claimed = [stuckOrder('1', new Date(NOW.getTime() - 7 * HOUR)), stuckOrder('2', new Date(NOW.getTime() - 6 * HOUR))];
    const saved: Array<{ order: Order; events: readonly OutboxMessage[]; credits: ReturnType<Order['takeCreditMovements']> }> = [];
    const lock = jest.fn((_tx: Transaction, _deadline: Date, _limit: number) => Promise.resolve(claimed));
    const orders = {
      lockInProgressUnchangedSince: lock,
      save: (_tx: Transaction, order: Order, events: readonly OutboxMessage[]) => {
        saved.push({ order, events, credits: order.takeCreditMovements() });
        return Promise.resolve();
      },
    } as unknown as OrdersRepository;
    const useCase = new FailStuckOrdersUseCase(config, transactions, orders, new ManualClock(NOW));

    expect(await useCase.execute(10)).toBe(2);
    expect(lock).toHaveBeenCalledWith(tx, new Date(NOW.getTime() - 6 * HOUR), 10);
    expect(saved.map((entry) => entry.order.state.failureCode)).toEqual(['PROCESSING_TIMEOUT', 'PROCESSING_TIMEOUT']);
    expect(saved.map((entry) => entry.events.map((event) => event.contract.subject))).toEqual([
      [EventSubjects.orderFailed, EventSubjects.orderStatusChanged],
      [EventSubjects.orderFailed, EventSubjects.orderStatusChanged],
    ]);
    expect(saved.map((entry) => entry.credits)).toEqual([
      [{ amount: 3, reference: 'restore:1', reason: 'order failed' }],
      [{ amount: 3, reference: 'restore:2', reason: 'order failed' }],
    ]);
  });

  it('returns 0 and saves nothing when no order is claimed', async () => {
    const save = jest.fn();
    const orders = { lockInProgressUnchangedSince: () => Promise.resolve([]), save } as unknown as OrdersRepository;
    expect(await new FailStuckOrdersUseCase(config, transactions, orders, new ManualClock(NOW)).execute()).toBe(0);
    expect(save).not.toHaveBeenCalled();
  });
});
