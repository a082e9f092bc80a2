// The reconciliation's rules with in-memory repositories and a fake orders service (the statements themselves are
// tested against PostgreSQL in schedule-reconciliation.repository.spec.ts).
import { ManualClock } from '@cp/clock';
import { ExpiryScheduleCursor, ExpirySchedulesPage, ExpirySchedulesQuery, ExpiryScheduleView } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { FakeLeasedCursor } from '../__fixtures__/fake-leased-cursor';
import { ReconcileSettings, RetentionSettings } from '../retention.config';
import { NewExpiry, OrderExpiryRepository } from './order-expiry.repository';
import { OrderSchedulesPort } from './order-schedules.client';
import { ReconcileSchedulesUseCase } from './reconcile-schedules.use-case';
import { reconciliationMetrics } from './reconciliation.metrics';
import { ScheduleReconciliationRepository } from './schedule-reconciliation.repository';

const after = (a: ExpiryScheduleCursor, b: ExpiryScheduleCursor): boolean =>
  a.expiresAt > b.expiresAt || (a.expiresAt === b.expiresAt && BigInt(a.orderId) > BigInt(b.orderId));

/** Orders' side: every order's schedule, paged as orders.expiry-schedules pages them. */
class FakeOrders extends OrderSchedulesPort {
  readonly schedules: ExpiryScheduleView[] = [];
  readonly asked: ExpirySchedulesQuery[] = [];
  failNext = false;
  /** Runs during the call (another replica acting meanwhile). */
  during?: () => void;

  add(orderId: string, expiresAt: string, mode: 'live' | 'test' = 'live'): void {
    this.schedules.push({ orderId, accountId: '9', mode, expiresAt });
  }

  async page(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage> {
    this.asked.push(query);
    this.during?.();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('orders did not answer');
    }
    const sorted = [...this.schedules].sort((a, b) => (after(a, b) ? 1 : -1));
    const page = sorted.filter((schedule) => (!query.after || after(schedule, query.after)) && schedule.expiresAt <= query.expiresUpTo);
    return { schedules: page.slice(0, query.limit) };
  }
}

/** The schedule table: insert-or-ignore by order id. */
class FakeExpiries {
  readonly rows = new Map<string, NewExpiry & { phase: string }>();
  failNext = false;

  async scheduleMissing(_tx: Transaction, expiries: NewExpiry[]): Promise<string[]> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database unavailable');
    }
    const added = expiries.filter((expiry) => !this.rows.has(expiry.orderId));
    added.forEach((expiry) => this.rows.set(expiry.orderId, { ...expiry, phase: 'scheduled' }));
    return added.map((expiry) => expiry.orderId);
  }
}

describe('ReconcileSchedulesUseCase', () => {
  const retention = { leaseMs: 600_000 } as RetentionSettings;
  const reconcile: ReconcileSettings = { intervalMs: 1000, graceMs: 300_000, pageSize: 2, pauseMs: 0 };
  const tx = {} as Transaction;
  const transactions = { run: <T>(work: (handle: Transaction) => Promise<T>): Promise<T> => work(tx) } as TransactionRepository;

  let clock: ManualClock;
  let orders: FakeOrders;
  let expiries: FakeExpiries;
  let cursor: FakeLeasedCursor<ExpiryScheduleCursor>;
  let useCase: ReconcileSchedulesUseCase;

  const reconciledMetric = async (): Promise<number> => (await reconciliationMetrics.reconciled.get()).values[0]?.value ?? 0;

  /** A whole pass: pages until one is not full. */
  const pass = async (): Promise<number> => {
    let reconciled = 0;
    let page;
    do {
      page = await useCase.execute();
      reconciled += page.reconciled;
    } while (page.more);
    return reconciled;
  };

  beforeEach(() => {
    clock = new ManualClock(new Date('2026-11-01T12:00:00.000Z'));
    orders = new FakeOrders();
    expiries = new FakeExpiries();
    cursor = new FakeLeasedCursor(after);
    useCase = new ReconcileSchedulesUseCase(
      transactions,
      { retention, reconcile },
      expiries as unknown as OrderExpiryRepository,
      cursor as unknown as ScheduleReconciliationRepository,
      orders,
      clock,
    );
  });

  it('walks from the oldest order in pages, schedules only the orders without a row, due from their expiresAt', async () => {
    orders.add('1', '2026-09-01T00:00:00.000000Z');
    orders.add('2', '2026-10-01T00:00:00.000000Z', 'test');
    orders.add('3', '2026-10-01T00:00:00.000000Z');
    orders.add('4', '2026-10-31T00:00:00.123456Z');
    orders.add('5', '2026-11-01T11:00:00.000000Z');
    // Scheduled by its status event, then purged: left as it is.
    expiries.rows.set('3', { orderId: '3', accountId: '9', expiresAt: new Date('2026-10-01T00:00:00.000Z'), mode: 'live', phase: 'purged' });
    const before = await reconciledMetric();

    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 2, more: true });
    expect(orders.asked[0]).toEqual({ expiresUpTo: '2026-11-01T11:55:00.000Z', limit: 2 });
    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 1, more: true });
    expect(orders.asked[1].after).toEqual({ expiresAt: '2026-10-01T00:00:00.000000Z', orderId: '2' });
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });

    expect([...expiries.rows.values()]).toEqual([
      { orderId: '3', accountId: '9', expiresAt: new Date('2026-10-01T00:00:00.000Z'), mode: 'live', phase: 'purged' },
      { orderId: '1', accountId: '9', expiresAt: new Date('2026-09-01T00:00:00.000Z'), mode: 'live', phase: 'scheduled' },
      { orderId: '2', accountId: '9', expiresAt: new Date('2026-10-01T00:00:00.000Z'), mode: 'test', phase: 'scheduled' },
      { orderId: '4', accountId: '9', expiresAt: new Date('2026-10-31T00:00:00.123Z'), mode: 'live', phase: 'scheduled' },
      { orderId: '5', accountId: '9', expiresAt: new Date('2026-11-01T11:00:00.000Z'), mode: 'live', phase: 'scheduled' },
    ]);
    expect(cursor).toMatchObject({ cursor: { expiresAt: '2026-11-01T11:00:00.000000Z', orderId: '5' }, leasedUntil: null, reconciled: 4 });
    expect((await reconciledMetric()) - before).toBe(4);
  });

  it('leaves orders whose expiresAt is within the grace period to a later pass, and goes on from its cursor', async () => {
    orders.add('1', '2026-11-01T11:54:59.999000Z');
    orders.add('2', '2026-11-01T11:55:00.001000Z');
    expect(await pass()).toBe(1);
    expect([...expiries.rows.keys()]).toEqual(['1']);
    // Nothing new: the cursor stays, the lease is given back.
    expect(await useCase.execute()).toEqual({ read: 0, reconciled: 0, more: false });
    expect(cursor).toMatchObject({ cursor: { orderId: '1' }, leasedUntil: null });
    clock.advance(60_000);
    expect(await pass()).toBe(1);
    expect(orders.asked[orders.asked.length - 1].after).toEqual({ expiresAt: '2026-11-01T11:54:59.999000Z', orderId: '1' });
    expect(cursor.cursor).toEqual({ expiresAt: '2026-11-01T11:55:00.001000Z', orderId: '2' });
    expect([...expiries.rows.keys()]).toEqual(['1', '2']);
  });

  it('a pass with every order already scheduled adds nothing and says so (no metric)', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    expiries.rows.set('1', { orderId: '1', accountId: '9', expiresAt: new Date('2026-10-01T00:00:00.000Z'), mode: 'live', phase: 'done' });
    const before = await reconciledMetric();
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 0, more: false });
    expect(await reconciledMetric()).toBe(before);
    expect(expiries.rows.get('1')?.phase).toBe('done');
  });

  it('while another replica holds the lease, orders is not asked; once its lease runs out, the page is read', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    await cursor.claim(tx, clock.now(), new Date(clock.nowMs() + retention.leaseMs));
    expect(await useCase.execute()).toEqual({ read: 0, reconciled: 0, more: false });
    expect(orders.asked).toEqual([]);
    clock.advance(retention.leaseMs);
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
  });

  it('a failed orders call moves nothing and gives the lease back at once', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    orders.failNext = true;
    await expect(useCase.execute()).rejects.toThrow('orders did not answer');
    expect(cursor).toMatchObject({ cursor: null, leasedUntil: null });
    expect(expiries.rows.size).toBe(0);
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
  });

  it('the cursor moves only with the schedules: a failed insert leaves it where it was, the page is read again', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    expiries.failNext = true;
    await expect(useCase.execute()).rejects.toThrow('database unavailable');
    expect(cursor).toMatchObject({ cursor: null, leasedUntil: null });
    expect(await useCase.execute()).toEqual({ read: 1, reconciled: 1, more: false });
    expect(cursor.cursor).toEqual({ expiresAt: '2026-10-01T00:00:00.000000Z', orderId: '1' });
  });

  it('a page that outlived its lease keeps its schedules but leaves the cursor to the replica that took over', async () => {
    orders.add('1', '2026-10-01T00:00:00.000000Z');
    orders.add('2', '2026-10-02T00:00:00.000000Z');
    orders.add('3', '2026-10-03T00:00:00.000000Z');
    orders.during = () => {
      // This call took longer than the lease: another replica claimed the row and read further meanwhile.
      orders.during = undefined;
      cursor.leasedUntil = null;
      cursor.cursor = { expiresAt: '2026-10-03T00:00:00.000000Z', orderId: '3' };
    };
    expect(await useCase.execute()).toEqual({ read: 2, reconciled: 2, more: false });
    expect(cursor.cursor).toEqual({ expiresAt: '2026-10-03T00:00:00.000000Z', orderId: '3' });
  });
});
