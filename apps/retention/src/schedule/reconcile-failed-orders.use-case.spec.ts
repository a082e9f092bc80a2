// The reconciliation of failed orders' rules with in-memory repositories and a fake orders service (the statements
// themselves, and the sweep that follows, run against PostgreSQL, NATS and S3 in
// reconcile-failed-orders.integration.spec.ts).
import { ManualClock } from '@cp/clock';
import { FailedOrderCursor, FailedOrdersPage, FailedOrdersQuery, FailedOrderView } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { FakeLeasedCursor } from '../__fixtures__/fake-leased-cursor';
import { ReconcileSettings, RetentionSettings } from '../retention.config';
import { FailedOrderReconciliationRepository } from './failed-order-reconciliation.repository';
import { FailedOrdersPort } from './failed-orders.client';
import { NewExpiry, OrderExpiryRepository } from './order-expiry.repository';
import { FAILED_ORDER_COMMIT_MARGIN_MS, ReconcileFailedOrdersUseCase } from './reconcile-failed-orders.use-case';
import { reconciliationMetrics } from './reconciliation.metrics';

const HOUR = 3600_000;

const after = (a: FailedOrderCursor, b: FailedOrderCursor): boolean => a.failedAt > b.failedAt || (a.failedAt === b.failedAt && BigInt(a.orderId) > BigInt(b.orderId));

/** Orders' side: every failed order, paged as orders.failed-orders pages them. */
class FakeOrders extends FailedOrdersPort {
  readonly failed: FailedOrderView[] = [];
  readonly asked: FailedOrdersQuery[] = [];
  failNext = false;

  add(orderId: string, failedAt: string, fields: Partial<FailedOrderView> = {}): void {
    this.failed.push({ orderId, accountId: '9', mode: 'live', expiresAt: '2026-12-01T00:00:00.000000Z', failedAt, ...fields });
  }

  async page(query: FailedOrdersQuery): Promise<FailedOrdersPage> {
    this.asked.push(query);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('orders did not answer');
    }
    const sorted = [...this.failed].sort((a, b) => (after(a, b) ? 1 : -1));
    return { orders: sorted.filter((order) => (!query.after || after(order, query.after)) && order.failedAt <= query.failedUpTo).slice(0, query.limit) };
  }
}

interface Row extends NewExpiry {
  phase: 'scheduled' | 'purged' | 'done';
  nextCheckAt: Date;
  failedPurgeAt: Date | null;
}

/** The schedule table, with the rules of `scheduleMissedFailedPurges`. */
class FakeExpiries {
  readonly rows = new Map<string, Row>();
  failNext = false;

  async scheduleMissedFailedPurges(_tx: Transaction, expiries: Array<NewExpiry & { purgeAt: Date }>): Promise<string[]> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database unavailable');
    }
    const added: string[] = [];
    for (const { purgeAt, ...expiry } of expiries) {
      const row = this.rows.get(expiry.orderId);
      if (!row) {
        this.rows.set(expiry.orderId, { ...expiry, phase: 'scheduled', nextCheckAt: purgeAt < expiry.expiresAt ? purgeAt : expiry.expiresAt, failedPurgeAt: purgeAt });
        added.push(expiry.orderId);
      } else if (row.phase === 'scheduled' && row.failedPurgeAt === null) {
        Object.assign(row, { failedPurgeAt: purgeAt, nextCheckAt: purgeAt < row.nextCheckAt ? purgeAt : row.nextCheckAt });
        added.push(expiry.orderId);
      }
    }
    return added;
  }
}

describe('ReconcileFailedOrdersUseCase', () => {
  const retention = { leaseMs: 600_000, failedOrderGraceMs: 24 * HOUR } as RetentionSettings;
  const reconcile: ReconcileSettings = { intervalMs: 1000, graceMs: 300_000, pageSize: 2, pauseMs: 0 };
  const tx = {} as Transaction;
  const transactions = { run: <T>(work: (handle: Transaction) => Promise<T>): Promise<T> => work(tx) } as TransactionRepository;

  let clock: ManualClock;
  let orders: FakeOrders;
  let expiries: FakeExpiries;
  let cursor: FakeLeasedCursor<FailedOrderCursor>;
  let useCase: ReconcileFailedOrdersUseCase;

  const reconciledMetric = async (): Promise<number> => (await reconciliationMetrics.failedReconciled.get()).values[0]?.value ?? 0;

  const build = (settings: ReconcileSettings): ReconcileFailedOrdersUseCase =>
    new ReconcileFailedOrdersUseCase(transactions, { retention, reconcile: settings }, expiries as unknown as OrderExpiryRepository, cursor as unknown as FailedOrderReconciliationRepository, orders, clock);

  beforeEach(() => {
    clock = new ManualClock(new Date('2026-11-01T12:00:00.000Z'));
    orders = new FakeOrders();
    expiries = new FakeExpiries();
    cursor = new FakeLeasedCursor(after);
    useCase = build(reconcile);
  });

  it("walks failed orders from the oldest in pages and gives those their event never scheduled a purge at failedAt + the grace", async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    orders.add('2', '2026-10-20T00:00:00.000000Z', { mode: 'test' });
    orders.add('3', '2026-10-31T18:00:00.123456Z');
    orders.add('4', '2026-11-01T11:00:00.000000Z', { expiresAt: '2026-11-01T11:30:00.000000Z' });
    // Its failed event came: its purge time stays.
    expiries.rows.set('2', { orderId: '2', accountId: '9', expiresAt: new Date('2026-12-01T00:00:00.000Z'), mode: 'test', phase: 'scheduled', nextCheckAt: new Date('2026-10-21T00:05:00.000Z'), failedPurgeAt: new Date('2026-10-21T00:05:00.000Z') });
    const before = await reconciledMetric();

    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 1, more: true });
    expect(orders.asked[0]).toEqual({ failedUpTo: '2026-11-01T11:50:00.000Z', limit: 2 });
    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 2, more: true });
    expect(orders.asked[1].after).toEqual({ failedAt: '2026-10-20T00:00:00.000000Z', orderId: '2' });
    expect(await useCase.execute()).toEqual({ read: 0, reconciled: 0, more: false });

    // Past its grace already: due at once (its purge time passed). Within it: due when it ends.
    expect(expiries.rows.get('1')).toMatchObject({ phase: 'scheduled', failedPurgeAt: new Date('2026-10-02T00:00:00.000Z'), nextCheckAt: new Date('2026-10-02T00:00:00.000Z') });
    expect(expiries.rows.get('2')?.failedPurgeAt).toEqual(new Date('2026-10-21T00:05:00.000Z'));
    expect(expiries.rows.get('3')).toMatchObject({ failedPurgeAt: new Date('2026-11-01T18:00:00.123Z'), nextCheckAt: new Date('2026-11-01T18:00:00.123Z') });
    // Its retention ends before its grace: due at its expiry, as the event would have made it.
    expect(expiries.rows.get('4')).toMatchObject({ nextCheckAt: new Date('2026-11-01T11:30:00.000Z'), expiresAt: new Date('2026-11-01T11:30:00.000Z') });
    expect(cursor).toMatchObject({ cursor: { failedAt: '2026-11-01T11:00:00.000000Z', orderId: '4' }, leasedUntil: null, reconciled: 3 });
    expect((await reconciledMetric()) - before).toBe(3);
  });

  it('reads only orders that failed at least the commit margin ago, even with a shorter reconcile grace, and goes on from its cursor', async () => {
    useCase = build({ ...reconcile, graceMs: 0 });
    orders.add('1', '2026-11-01T11:49:59.999000Z');
    orders.add('2', '2026-11-01T11:50:00.001000Z');
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
    expect(orders.asked[0].failedUpTo).toBe(new Date(clock.nowMs() - FAILED_ORDER_COMMIT_MARGIN_MS).toISOString());
    expect(await useCase.execute()).toEqual({ read: 0, reconciled: 0, more: false });
    clock.advance(60_000);
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
    expect(orders.asked[orders.asked.length - 1].after).toEqual({ failedAt: '2026-11-01T11:49:59.999000Z', orderId: '1' });
    expect([...expiries.rows.keys()]).toEqual(['1', '2']);
  });

  it('leaves a row that has a purge time, or whose order expired already, as it is; a second pass adds nothing', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    orders.add('2', '2026-10-02T00:00:00.000000Z');
    expiries.rows.set('1', { orderId: '1', accountId: '9', expiresAt: new Date('2026-10-05T00:00:00.000Z'), mode: 'live', phase: 'purged', nextCheckAt: new Date('2026-10-05T01:00:00.000Z'), failedPurgeAt: null });
    const before = await reconciledMetric();
    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 1, more: true });
    expect(expiries.rows.get('1')).toMatchObject({ phase: 'purged', failedPurgeAt: null });
    cursor.cursor = null;
    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 0, more: true });
    expect((await reconciledMetric()) - before).toBe(1);
  });

  it('while another replica holds the lease, orders is not asked; once its lease runs out, the page is read', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    await cursor.claim(tx, clock.now(), new Date(clock.nowMs() + retention.leaseMs));
    expect(await useCase.execute()).toEqual({ read: 0, reconciled: 0, more: false });
    expect(orders.asked).toEqual([]);
    clock.advance(retention.leaseMs);
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
  });

  it('a failed orders call or insert moves nothing and gives the lease back at once; the page is read again', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    orders.failNext = true;
    await expect(useCase.execute()).rejects.toThrow('orders did not answer');
    expect(cursor).toMatchObject({ cursor: null, leasedUntil: null });
    expiries.failNext = true;
    await expect(useCase.execute()).rejects.toThrow('database unavailable');
    expect(cursor).toMatchObject({ cursor: null, leasedUntil: null });
    expect(expiries.rows.size).toBe(0);
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
    expect(cursor.cursor).toEqual({ failedAt: '2026-10-01T00:00:00.000000Z', orderId: '1' });
  });
});
