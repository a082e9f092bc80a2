// The retention sweep against real PostgreSQL and a real S3 server; orders is a fake behind its port.
import { ManualClock } from '@cp/clock';
import { Events, ExpireOrdersResult, ObjectKeys } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository, asTransaction } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { testInfra, testStorageConfig, uniqueName } from '@cp/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { DataSource } from 'typeorm';
import { RETENTION_ENTITIES } from '../database/entities';
import { RETENTION_MIGRATIONS } from '../database/migrations';
import { RetentionSettings } from '../retention.config';
import { OrderExpiryEntity } from '../schedule/order-expiry.entity';
import { OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from './order-objects.service';
import { OrdersExpiryPort } from './orders-expiry.client';
import { RetentionEndEventsRepository } from './retention-end-events.repository';
import { SweepExpiredOrdersUseCase } from './sweep-expired-orders.use-case';

/** Which of the given schedule rows another connection cannot lock right now (someone holds their row lock). */
async function lockedRows(dataSource: DataSource, orderIds: string[]): Promise<string[]> {
  const locked: string[] = [];
  for (const orderId of orderIds) {
    try {
      await dataSource.transaction((tx) => tx.query('SELECT order_id FROM order_expiry WHERE order_id = $1 FOR UPDATE NOWAIT', [orderId]));
    } catch {
      locked.push(orderId);
    }
  }
  return locked;
}

class FakeOrders extends OrdersExpiryPort {
  readonly expired = new Set<string>();
  /** Ids orders refuses (not due by its clock, or unknown). */
  readonly refuse = new Set<string>();
  readonly asked: string[][] = [];
  /** Rows found row-locked while orders was being called (a lock held across the RPC). */
  readonly lockedDuringCall: string[] = [];
  failNext = false;

  constructor(private readonly dataSource: () => DataSource) {
    super();
  }

  async expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    this.asked.push([...orderIds]);
    this.lockedDuringCall.push(...(await lockedRows(this.dataSource(), orderIds)));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('orders did not answer');
    }
    orderIds.filter((id) => !this.refuse.has(id)).forEach((id) => this.expired.add(id));
    return { expired: orderIds.filter((id) => !this.refuse.has(id)), skipped: orderIds.filter((id) => this.refuse.has(id)) };
  }
}

/** Real storage whose bulk delete reports the keys in `failing` as not deleted (they stay), as S3 does per key. */
class FlakyStorage extends ObjectStorage {
  readonly failing = new Set<string>();
  /** Set by the test: rows found row-locked during a delete. */
  checkLocks?: () => Promise<string[]>;
  readonly lockedDuringDelete: string[] = [];

  override async removeEach(bucket: string, keys: string[]): Promise<string[]> {
    if (this.checkLocks) {
      this.lockedDuringDelete.push(...(await this.checkLocks()));
    }
    const failed = keys.filter((key) => this.failing.has(key));
    await super.removeEach(bucket, keys.filter((key) => !this.failing.has(key)));
    return failed;
  }
}

describe('SweepExpiredOrdersUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_retention');
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  const settings: RetentionSettings = { sweepIntervalMs: 1000, batchSize: 3, deleteConcurrency: 2, recheckMs: 3600_000, leaseMs: 600_000, failedOrderGraceMs: 24 * 3600_000 };
  let s3: S3rver;
  let storage: FlakyStorage;
  let dataSource: DataSource;
  let orders: FakeOrders;
  let sweep: SweepExpiredOrdersUseCase;
  const repository = new OrderExpiryRepository();

  const accountId = '77';
  const orderIds = ['1001', '1002', '1003', '1004', '1005', '1006', '1007'];
  const testOrderId = '1008';

  const objectsOf = async (orderId: string): Promise<number> => {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    const { inputs, outputs, reports } = storage.buckets;
    const counts = await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, prefix)));
    return counts.reduce((sum, keys) => sum + keys.length, 0);
  };

  const phases = async (): Promise<Record<string, string>> => {
    const rows = await dataSource.getRepository(OrderExpiryEntity).find();
    return Object.fromEntries(rows.map((row) => [row.orderId, row.phase]));
  };

  const drain = async (): Promise<void> => {
    let handled: number;
    do {
      handled = await sweep.execute();
    } while (handled > 0);
  };

  const storeObjects = async (orderId: string): Promise<void> => {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    await storage.put(storage.buckets.inputs, `${prefix}inputs/1/a.png`, Buffer.from('in'));
    await storage.put(storage.buckets.outputs, `${prefix}outputs/1-1/a-watermarked-1-1.png`, Buffer.from('out'));
    await storage.put(storage.buckets.reports, `${prefix}reports/ko-KR.pdf`, Buffer.from('pdf'));
  };

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await s3.run();
    storage = new FlakyStorage(testStorageConfig(`http://127.0.0.1:${port}`));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...RETENTION_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: RETENTION_MIGRATIONS,
      applicationName: 'it',
    });
    orders = new FakeOrders(() => dataSource);
    sweep = new SweepExpiredOrdersUseCase(
      new TransactionRepository(dataSource),
      { retention: settings },
      repository,
      orders,
      new OrderObjects(storage),
      clock,
      new RetentionEndEventsRepository(new OutboxWriter(clock)),
    );
    // Six orders expired an hour ago, one expires tomorrow; each has an input, an output and a report.
    for (const [index, orderId] of orderIds.entries()) {
      const expiresAt = new Date(clock.nowMs() + (index === 6 ? 24 : -1) * 3600_000);
      await repository.schedule(asTransaction(dataSource.manager), { orderId, accountId, expiresAt, mode: 'live' });
      await repository.schedule(asTransaction(dataSource.manager), { orderId, accountId, expiresAt: new Date(0), mode: 'live' }); // a redelivery changes nothing
      await storeObjects(orderId);
    }
    // Another order of the same account whose id shares the digits must not be touched.
    await storage.put(storage.buckets.inputs, `${accountId}/10011/inputs/1/keep.png`, Buffer.from('keep'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  it('a sweeper that crashed after claiming leaves its batch leased; once the lease runs out the batch is claimed again', async () => {
    // What a crashed replica left behind: the first batch claimed, nothing done with it.
    const crashed = await dataSource.transaction((tx) => repository.claimDue(asTransaction(tx), clock.now(), 3, new Date(clock.nowMs() + settings.leaseMs)));
    expect(crashed.map((row) => row.orderId)).toEqual(['1001', '1002', '1003']);
    // Another sweep meanwhile takes the next rows, not the leased ones.
    expect(await sweep.execute()).toBe(3);
    expect(orders.asked).toEqual([['1004', '1005', '1006']]);
    clock.advance(settings.leaseMs);
    expect(await sweep.execute()).toBe(3);
    expect(orders.asked[1]).toEqual(['1001', '1002', '1003']);
    expect(Object.values(await phases()).filter((phase) => phase === 'purged')).toHaveLength(6);
  });

  it('holds no row lock while orders is called or objects are deleted', async () => {
    expect(orders.lockedDuringCall).toEqual([]);
    expect(storage.lockedDuringDelete).toEqual([]);
    // And with the locks looked at during the deletes too (the recheck pass of the six purged orders).
    storage.checkLocks = () => lockedRows(dataSource, orderIds);
    clock.advance(settings.recheckMs);
    await drain();
    storage.checkLocks = undefined;
    expect(storage.lockedDuringDelete).toEqual([]);
    expect(Object.values(await phases()).filter((phase) => phase === 'done')).toHaveLength(6);
  });

  it('drains the due orders in batches, deleting every object under their prefixes', async () => {
    for (const orderId of orderIds.slice(0, 6)) {
      expect(await objectsOf(orderId)).toBe(0);
    }
    expect(await objectsOf('1007')).toBe(3);
    expect(await storage.stat(storage.buckets.inputs, `${accountId}/10011/inputs/1/keep.png`)).not.toBeNull();
    const rows = await dataSource.getRepository(OrderExpiryEntity).findBy({ phase: 'done' });
    expect(rows.map((row) => row.objectsDeleted)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(rows.every((row) => row.leasedUntil === null)).toBe(true);
  });

  it('an order with a key storage does not delete stays due and is not marked purged; the next sweep finishes it', async () => {
    clock.advance(24 * 3600_000);
    const stuck = `${ObjectKeys.orderPrefix(accountId, '1007')}outputs/1-1/a-watermarked-1-1.png`;
    storage.failing.add(stuck);
    expect(await sweep.execute()).toBe(1);
    expect((await phases())['1007']).toBe('scheduled');
    expect(await storage.stat(storage.buckets.outputs, stuck)).not.toBeNull();
    expect(await objectsOf('1007')).toBe(1);
    // Not due again within the same sweep (no busy loop), due at the next one.
    expect(await sweep.execute()).toBe(0);
    storage.failing.clear();
    clock.advance(settings.sweepIntervalMs);
    expect(await sweep.execute()).toBe(1);
    expect((await phases())['1007']).toBe('purged');
    expect(await objectsOf('1007')).toBe(0);
  });

  it('a failed orders call gives the batch back at once', async () => {
    const orderId = '1009';
    await repository.schedule(asTransaction(dataSource.manager), { orderId, accountId, expiresAt: clock.now(), mode: 'live' });
    orders.failNext = true;
    await expect(sweep.execute()).rejects.toThrow('orders did not answer');
    const row = await dataSource.getRepository(OrderExpiryEntity).findOneByOrFail({ orderId });
    expect(row).toMatchObject({ phase: 'scheduled', leasedUntil: null });
    expect(await sweep.execute()).toBe(1);
    expect((await phases())[orderId]).toBe('purged');
  });

  const retentionEndedEvents = async (): Promise<unknown[]> =>
    (await dataSource.query<Array<{ payload: unknown }>>(`SELECT envelope -> 'data' AS payload FROM outbox_event WHERE subject = $1 ORDER BY seq`, [Events.testOrderRetentionEnded.subject])).map((row) => row.payload);

  it("deletes test orders' objects too, without asking orders to expire them (they keep their test status), and announces their end once", async () => {
    // Live orders purged so far were not announced: their `expired` status event does that.
    expect(await retentionEndedEvents()).toEqual([]);
    await repository.schedule(asTransaction(dataSource.manager), { orderId: testOrderId, accountId, expiresAt: clock.now(), mode: 'test' });
    await storeObjects(testOrderId);
    const asked = orders.asked.length;
    await drain();
    expect(orders.asked.length).toBe(asked);
    expect((await phases())[testOrderId]).toBe('purged');
    expect(await objectsOf(testOrderId)).toBe(0);
    expect(await retentionEndedEvents()).toEqual([expect.objectContaining({ orderId: testOrderId, accountId })]);
    // The second look at its prefix (the recheck) does not announce it again.
    clock.advance(settings.recheckMs);
    await drain();
    expect((await phases())[testOrderId]).toBe('done');
    expect(await retentionEndedEvents()).toHaveLength(1);
  });

  it("deletes a failed order's objects once its grace ended, without expiring it; its expiry later finds nothing and expires it", async () => {
    const orderId = '1010';
    const expiresAt = new Date(clock.nowMs() + 30 * 24 * 3600_000);
    await repository.scheduleFailedPurge(asTransaction(dataSource.manager), { orderId, accountId, expiresAt, mode: 'live' }, new Date(clock.nowMs() + settings.failedOrderGraceMs));
    await storeObjects(orderId);
    await drain();
    expect(await objectsOf(orderId)).toBe(3);

    clock.advance(settings.failedOrderGraceMs);
    const asked = orders.asked.length;
    await drain();
    expect(await objectsOf(orderId)).toBe(0);
    expect(orders.asked.slice(asked).flat()).not.toContain(orderId);
    expect(orders.expired.has(orderId)).toBe(false);
    expect(await dataSource.getRepository(OrderExpiryEntity).findOneByOrFail({ orderId })).toMatchObject({ phase: 'scheduled', failedPurgedAt: clock.now(), nextCheckAt: expiresAt, objectsDeleted: 3, leasedUntil: null });

    clock.set(expiresAt);
    await drain();
    expect(orders.expired.has(orderId)).toBe(true);
    expect((await phases())[orderId]).toBe('purged');
    clock.advance(settings.recheckMs);
    await drain();
    expect(await dataSource.getRepository(OrderExpiryEntity).findOneByOrFail({ orderId })).toMatchObject({ phase: 'done', objectsDeleted: 3 });
  });
});
