// The retention sweep against real PostgreSQL and a real S3 server; orders is a fake behind its port.
import { ManualClock } from '@cp/clock';
import { ExpireOrdersResult, ObjectKeys } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
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
import { SweepExpiredOrdersUseCase } from './sweep-expired-orders.use-case';

class FakeOrders extends OrdersExpiryPort {
  readonly expired = new Set<string>();
  /** Ids orders refuses (not due by its clock, or unknown). */
  readonly refuse = new Set<string>();
  calls = 0;

  expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    this.calls += 1;
    orderIds.filter((id) => !this.refuse.has(id)).forEach((id) => this.expired.add(id));
    return Promise.resolve({ expired: orderIds.filter((id) => !this.refuse.has(id)), skipped: orderIds.filter((id) => this.refuse.has(id)) });
  }
}

/** Storage whose `remove` fails after `failAfter` calls: a crash in the middle of a batch. */
class FlakyStorage extends ObjectStorage {
  failAfter = Infinity;
  removes = 0;

  override async remove(bucket: string, keys: string[]): Promise<void> {
    if (keys.length > 0 && this.removes >= this.failAfter) {
      throw new Error('simulated crash');
    }
    this.removes += keys.length > 0 ? 1 : 0;
    await super.remove(bucket, keys);
  }
}

describe('SweepExpiredOrdersUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_retention');
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  const settings: RetentionSettings = { sweepIntervalMs: 1000, batchSize: 3, deleteConcurrency: 2, recheckMs: 3600_000 };
  let s3: S3rver;
  let storage: FlakyStorage;
  let dataSource: DataSource;
  let orders: FakeOrders;
  let sweep: SweepExpiredOrdersUseCase;
  const repository = new OrderExpiryRepository();

  const accountId = '77';
  const orderIds = ['1001', '1002', '1003', '1004', '1005', '1006', '1007'];

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
    orders = new FakeOrders();
    sweep = new SweepExpiredOrdersUseCase(new TransactionRepository(dataSource), { retention: settings }, repository, orders, new OrderObjects(storage), clock);
    // Six orders expired an hour ago, one expires tomorrow; each has an input, an output and a report.
    for (const [index, orderId] of orderIds.entries()) {
      const expiresAt = new Date(clock.nowMs() + (index === 6 ? 24 : -1) * 3600_000);
      await repository.schedule(dataSource.manager, { orderId, accountId, expiresAt });
      await repository.schedule(dataSource.manager, { orderId, accountId, expiresAt: new Date(0) }); // a redelivery changes nothing
      const prefix = ObjectKeys.orderPrefix(accountId, orderId);
      await storage.put(storage.buckets.inputs, `${prefix}inputs/1/a.png`, Buffer.from('in'));
      await storage.put(storage.buckets.outputs, `${prefix}outputs/1-1/a-watermarked-1-1.png`, Buffer.from('out'));
      await storage.put(storage.buckets.reports, `${prefix}reports/ko-KR.pdf`, Buffer.from('pdf'));
    }
    // Another order of the same account whose id shares the digits must not be touched.
    await storage.put(storage.buckets.inputs, `${accountId}/10011/inputs/1/keep.png`, Buffer.from('keep'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  it('a crash in the middle of a batch rolls the batch back; running again finishes it', async () => {
    storage.failAfter = 2;
    await expect(sweep.execute()).rejects.toThrow('simulated crash');
    expect(Object.values(await phases()).every((phase) => phase === 'scheduled')).toBe(true);
    storage.failAfter = Infinity;
    // Orders already expired the batch: asking again is harmless (idempotent on its side too).
    expect(await sweep.execute()).toBe(3);
    expect(orders.calls).toBe(2);
  });

  it('drains the due orders in batches, deleting every object under their prefixes', async () => {
    orders.refuse.add('1006');
    let handled: number;
    do {
      handled = await sweep.execute();
    } while (handled > 0);
    const after = await phases();
    expect(after).toEqual({ '1001': 'purged', '1002': 'purged', '1003': 'purged', '1004': 'purged', '1005': 'purged', '1006': 'scheduled', '1007': 'scheduled' });
    for (const orderId of ['1001', '1002', '1003', '1004', '1005']) {
      expect(await objectsOf(orderId)).toBe(0);
    }
    expect(await objectsOf('1006')).toBe(3);
    expect(await objectsOf('1007')).toBe(3);
    expect(await storage.stat(storage.buckets.inputs, `${accountId}/10011/inputs/1/keep.png`)).not.toBeNull();
    // Counts are of what each successful pass found (the crashed attempt had already removed some).
    const rows = await dataSource.getRepository(OrderExpiryEntity).findBy({ phase: 'purged' });
    expect(rows.filter((row) => ['1004', '1005'].includes(row.orderId)).map((row) => row.objectsDeleted)).toEqual([3, 3]);
  });

  it('lists the prefix once more after the recheck delay and deletes what in-flight jobs wrote late', async () => {
    const late = `${ObjectKeys.orderPrefix(accountId, '1001')}outputs/1-2/late.png`;
    await storage.put(storage.buckets.outputs, late, Buffer.from('late'));
    expect(await sweep.execute()).toBe(0);
    clock.advance(24 * 3600_000 + 1000);
    orders.refuse.clear();
    let handled: number;
    do {
      handled = await sweep.execute();
    } while (handled > 0);
    expect(await storage.stat(storage.buckets.outputs, late)).toBeNull();
    const after = await phases();
    expect(after['1001']).toBe('done');
    // 1006 was refused once and postponed; now it goes through its first pass.
    expect(after['1006']).toBe('purged');
    expect(await objectsOf('1006')).toBe(0);
    // 1007 is due now too (its day passed).
    expect(after['1007']).toBe('purged');
  });
});
