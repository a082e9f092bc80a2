// The sweep's handling of failed orders (their objects deleted a grace period after the failure, before their
// expiry), with fakes: a schedule with the repository's rules in memory, orders and storage behind their ports.
// The statements themselves run against real PostgreSQL in order-expiry.repository.spec.ts.
import { ManualClock } from '@cp/clock';
import { ExpireOrdersResult } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { RetentionSettings } from '../retention.config';
import { ExpiryPhase } from '../schedule/order-expiry.entity';
import { LeasedExpiry, NewExpiry, OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects, PurgeResult } from './order-objects.service';
import { OrdersExpiryPort } from './orders-expiry.client';
import { RetentionEndEventsRepository } from './retention-end-events.repository';
import { dueForFailedPurge, SweepExpiredOrdersUseCase } from './sweep-expired-orders.use-case';

const HOUR = 3600_000;
const settings: RetentionSettings = { sweepIntervalMs: 10_000, batchSize: 10, deleteConcurrency: 2, recheckMs: HOUR, leaseMs: 900_000, failedOrderGraceMs: 24 * HOUR };

interface Row extends NewExpiry {
  phase: ExpiryPhase;
  nextCheckAt: Date;
  leasedUntil: Date | null;
  objectsDeleted: number;
  failedPurgeAt: Date | null;
  failedPurgedAt: Date | null;
}

/** The schedule as `OrderExpiryRepository`'s statements keep it (no database). */
class FakeExpiries {
  readonly rows = new Map<string, Row>();

  add(orderId: string, expiresAt: Date, failedPurgeAt: Date | null = null): void {
    const nextCheckAt = failedPurgeAt && failedPurgeAt < expiresAt ? failedPurgeAt : expiresAt;
    this.rows.set(orderId, { orderId, accountId: '5', expiresAt, mode: 'live', phase: 'scheduled', nextCheckAt, leasedUntil: null, objectsDeleted: 0, failedPurgeAt, failedPurgedAt: null });
  }

  claimDue(_tx: Transaction, now: Date, limit: number, leasedUntil: Date): Promise<LeasedExpiry[]> {
    const due = [...this.rows.values()]
      .filter((row) => row.phase !== 'done' && row.nextCheckAt <= now && (row.leasedUntil === null || row.leasedUntil <= now))
      .sort((a, b) => a.nextCheckAt.getTime() - b.nextCheckAt.getTime())
      .slice(0, limit);
    due.forEach((row) => (row.leasedUntil = leasedUntil));
    return Promise.resolve(
      due.map((row) => ({
        orderId: row.orderId,
        accountId: row.accountId,
        phase: row.phase as Exclude<ExpiryPhase, 'done'>,
        mode: row.mode,
        leasedUntil,
        expiresAt: row.expiresAt,
        failedPurgeAt: row.failedPurgeAt,
        failedPurgedAt: row.failedPurgedAt,
      })),
    );
  }

  purged(_tx: Transaction, rows: Array<{ expiry: LeasedExpiry; deleted: number }>, now: Date, recheckMs: number): Promise<void> {
    for (const { expiry, deleted } of rows) {
      const row = this.leased(expiry);
      if (row) {
        Object.assign(row, expiry.phase === 'scheduled' ? { phase: 'purged', nextCheckAt: new Date(now.getTime() + recheckMs) } : { phase: 'done' });
        row.objectsDeleted += deleted;
        row.leasedUntil = null;
      }
    }
    return Promise.resolve();
  }

  failedPurged(_tx: Transaction, rows: Array<{ expiry: LeasedExpiry; deleted: number }>, now: Date): Promise<void> {
    for (const { expiry, deleted } of rows) {
      const row = this.leased(expiry);
      if (row && row.phase === 'scheduled') {
        Object.assign(row, { failedPurgedAt: now, nextCheckAt: row.expiresAt, leasedUntil: null });
        row.objectsDeleted += deleted;
      }
    }
    return Promise.resolve();
  }

  postpone(_tx: Transaction, expiries: LeasedExpiry[], until: Date): Promise<void> {
    expiries.map((expiry) => this.leased(expiry)).forEach((row) => row && Object.assign(row, { nextCheckAt: until, leasedUntil: null }));
    return Promise.resolve();
  }

  release(_tx: Transaction, expiries: LeasedExpiry[]): Promise<void> {
    expiries.map((expiry) => this.leased(expiry)).forEach((row) => row && (row.leasedUntil = null));
    return Promise.resolve();
  }

  private leased(expiry: LeasedExpiry): Row | undefined {
    const row = this.rows.get(expiry.orderId);
    return row && row.leasedUntil?.getTime() === expiry.leasedUntil.getTime() ? row : undefined;
  }
}

class FakeOrders extends OrdersExpiryPort {
  readonly asked: string[][] = [];

  expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    this.asked.push([...orderIds]);
    return Promise.resolve({ expired: orderIds, skipped: [] });
  }
}

/** Objects per order; `refuse` keeps an order's objects (storage did not delete them). */
class FakeObjects {
  readonly stored = new Map<string, number>();
  readonly refuse = new Set<string>();
  readonly purges: string[] = [];

  purge(_accountId: string, orderId: string): Promise<PurgeResult> {
    this.purges.push(orderId);
    const count = this.stored.get(orderId) ?? 0;
    if (this.refuse.has(orderId)) {
      return Promise.resolve({ deleted: 0, failed: count > 0 ? [`cp-inputs/5/${orderId}/inputs/1/a.png`] : [] });
    }
    this.stored.delete(orderId);
    return Promise.resolve({ deleted: count, failed: [] });
  }
}

function setup() {
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  const expiries = new FakeExpiries();
  const orders = new FakeOrders();
  const objects = new FakeObjects();
  const transactions = { run: <T>(work: (tx: Transaction) => Promise<T>) => work({} as Transaction) } as unknown as TransactionRepository;
  const sweep = new SweepExpiredOrdersUseCase(transactions, { retention: settings }, expiries as unknown as OrderExpiryRepository, orders, objects as unknown as OrderObjects, clock, new RetentionEndEventsRepository({ addAll: () => Promise.resolve() } as unknown as OutboxWriter));
  return { clock, expiries, orders, objects, sweep };
}

describe('SweepExpiredOrdersUseCase with failed orders', () => {
  it("deletes a failed order's objects once its grace period ended, without asking orders, then expires it at expiresAt as any other", async () => {
    const { clock, expiries, orders, objects, sweep } = setup();
    const expiresAt = new Date(clock.nowMs() + 30 * 24 * HOUR);
    expiries.add('41', expiresAt, new Date(clock.nowMs() + 24 * HOUR));
    objects.stored.set('41', 120);

    expect(await sweep.execute()).toBe(0);
    clock.advance(24 * HOUR);
    expect(await sweep.execute()).toBe(1);

    expect(orders.asked).toEqual([]);
    expect(objects.stored.has('41')).toBe(false);
    expect(expiries.rows.get('41')).toMatchObject({ phase: 'scheduled', failedPurgedAt: clock.now(), nextCheckAt: expiresAt, leasedUntil: null, objectsDeleted: 120 });
    // Not due again before its expiry.
    clock.advance(28 * 24 * HOUR);
    expect(await sweep.execute()).toBe(0);

    // Its expiry: orders expires it, and the prefix listed again holds nothing, which is no failure.
    clock.set(expiresAt);
    expect(await sweep.execute()).toBe(1);
    expect(orders.asked).toEqual([['41']]);
    expect(expiries.rows.get('41')).toMatchObject({ phase: 'purged', objectsDeleted: 120 });
    clock.advance(HOUR);
    expect(await sweep.execute()).toBe(1);
    expect(expiries.rows.get('41')?.phase).toBe('done');
    expect(objects.purges).toEqual(['41', '41', '41']);
  });

  it('asks orders to expire only the rows whose expiresAt came, in a batch with failed orders due early', async () => {
    const { clock, expiries, orders, objects, sweep } = setup();
    expiries.add('51', new Date(clock.nowMs() - HOUR));
    expiries.add('52', new Date(clock.nowMs() + 10 * 24 * HOUR), new Date(clock.nowMs() - 2 * HOUR));
    expiries.add('53', new Date(clock.nowMs() + 10 * 24 * HOUR), new Date(clock.nowMs() + HOUR));
    [51, 52, 53].forEach((id) => objects.stored.set(String(id), 3));

    expect(await sweep.execute()).toBe(2);

    expect(orders.asked).toEqual([['51']]);
    expect([...objects.stored.keys()]).toEqual(['53']);
    expect(expiries.rows.get('51')?.phase).toBe('purged');
    expect(expiries.rows.get('52')).toMatchObject({ phase: 'scheduled', failedPurgedAt: clock.now() });
    expect(expiries.rows.get('53')).toMatchObject({ phase: 'scheduled', failedPurgedAt: null });
  });

  it('expires a failed order whose grace outlasts its retention at expiresAt, through orders', async () => {
    const { clock, expiries, orders, sweep } = setup();
    const expiresAt = new Date(clock.nowMs() + HOUR);
    expiries.add('61', expiresAt, new Date(clock.nowMs() + 24 * HOUR));
    clock.set(expiresAt);
    expect(await sweep.execute()).toBe(1);
    expect(orders.asked).toEqual([['61']]);
    expect(expiries.rows.get('61')).toMatchObject({ phase: 'purged', failedPurgedAt: null });
  });

  it('keeps a failed order due when storage did not delete its objects, and finishes at the next sweep', async () => {
    const { clock, expiries, orders, objects, sweep } = setup();
    expiries.add('71', new Date(clock.nowMs() + 10 * 24 * HOUR), clock.now());
    objects.stored.set('71', 2);
    objects.refuse.add('71');

    expect(await sweep.execute()).toBe(1);
    expect(expiries.rows.get('71')).toMatchObject({ phase: 'scheduled', failedPurgedAt: null, nextCheckAt: new Date(clock.nowMs() + settings.sweepIntervalMs), leasedUntil: null });
    expect(await sweep.execute()).toBe(0);

    objects.refuse.clear();
    clock.advance(settings.sweepIntervalMs);
    expect(await sweep.execute()).toBe(1);
    expect(objects.stored.has('71')).toBe(false);
    expect(expiries.rows.get('71')).toMatchObject({ failedPurgedAt: clock.now(), objectsDeleted: 2 });
    expect(orders.asked).toEqual([]);
  });
});

describe('dueForFailedPurge', () => {
  const now = new Date('2026-11-01T00:00:00.000Z');
  const at = (hours: number) => new Date(now.getTime() + hours * HOUR);
  const expiry = (overrides: Partial<LeasedExpiry>): LeasedExpiry => ({
    orderId: '1',
    accountId: '5',
    phase: 'scheduled',
    mode: 'live',
    leasedUntil: at(1),
    expiresAt: at(100),
    failedPurgeAt: at(-1),
    failedPurgedAt: null,
    ...overrides,
  });

  it('is true only for a scheduled row whose purge time came before its expiry, not purged yet', () => {
    expect(dueForFailedPurge(expiry({}), now)).toBe(true);
    expect(dueForFailedPurge(expiry({ failedPurgeAt: now }), now)).toBe(true);
    expect(dueForFailedPurge(expiry({ failedPurgeAt: null }), now)).toBe(false);
    expect(dueForFailedPurge(expiry({ failedPurgeAt: at(1) }), now)).toBe(false);
    expect(dueForFailedPurge(expiry({ failedPurgedAt: at(-0.5) }), now)).toBe(false);
    expect(dueForFailedPurge(expiry({ expiresAt: now }), now)).toBe(false);
    expect(dueForFailedPurge(expiry({ phase: 'purged' }), now)).toBe(false);
  });
});
