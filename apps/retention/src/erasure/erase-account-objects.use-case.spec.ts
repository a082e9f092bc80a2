// An erased account's objects and schedules against real PostgreSQL and a real S3 server: every object under the
// account's prefix goes (not another account's whose id shares its digits), then its schedules; a key storage does
// not delete keeps the schedules for the redelivery; repeating it deletes nothing more.
import { ObjectKeys } from '@cp/contracts';
import { asTransaction, openServiceDatabase } from '@cp/database';
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
import { OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from '../sweep/order-objects.service';
import { AccountObjectsRemainError, EraseAccountObjectsUseCase, InTransaction } from './erase-account-objects.use-case';

/** Real storage whose bulk delete reports the keys in `failing` as not deleted (they stay), as S3 does per key. */
class FlakyStorage extends ObjectStorage {
  readonly failing = new Set<string>();

  override async removeEach(bucket: string, keys: string[]): Promise<string[]> {
    await super.removeEach(bucket, keys.filter((key) => !this.failing.has(key)));
    return keys.filter((key) => this.failing.has(key));
  }
}

describe('EraseAccountObjectsUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_retention_erasure');
  let s3: S3rver;
  let storage: FlakyStorage;
  let dataSource: DataSource;
  let erase: EraseAccountObjectsUseCase;
  const expiries = new OrderExpiryRepository();

  const inTransaction: InTransaction = (work) => dataSource.transaction((manager) => work(asTransaction(manager)));
  const keysOf = async (accountId: string): Promise<string[]> => {
    const { inputs, outputs, reports } = storage.buckets;
    return (await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, ObjectKeys.accountPrefix(accountId))))).flat();
  };
  const schedulesOf = async (accountId: string): Promise<number> =>
    (await dataSource.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM order_expiry WHERE account_id = $1', [accountId]))[0].n;

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await s3.run();
    storage = new FlakyStorage(testStorageConfig(`http://127.0.0.1:${port}`));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...RETENTION_ENTITIES, ...MESSAGING_ENTITIES], migrations: RETENTION_MIGRATIONS, applicationName: 'it' });
    erase = new EraseAccountObjectsUseCase(new OrderObjects(storage), expiries);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  it("deletes every object and schedule of the account, whatever their retention, and no other account's", async () => {
    const expiresAt = new Date('2026-12-30T00:00:00.000Z');
    for (const [accountId, orderId] of [['55', '1'], ['55', '2'], ['550', '3']]) {
      await storage.put(storage.buckets.inputs, ObjectKeys.input(accountId, orderId, '1', 'Jane Doe.png'), Buffer.from('in'));
      await storage.put(storage.buckets.outputs, ObjectKeys.output(accountId, orderId, '1-1', 'Jane Doe.png'), Buffer.from('out'));
      await expiries.schedule(asTransaction(dataSource.manager), { orderId, accountId, expiresAt, mode: 'live' });
    }
    await storage.put(storage.buckets.reports, `55/2/reports/en-US.pdf`, Buffer.from('pdf'));
    const stuck = ObjectKeys.output('55', '2', '1-1', 'Jane Doe.png');
    storage.failing.add(stuck);

    // Storage keeps one object: the schedules stay, the event is to be redelivered.
    await expect(erase.execute('55', inTransaction)).rejects.toBeInstanceOf(AccountObjectsRemainError);
    expect(await keysOf('55')).toEqual([stuck]);
    expect(await schedulesOf('55')).toBe(2);

    storage.failing.clear();
    expect(await erase.execute('55', inTransaction)).toEqual({ objects: 1, schedules: 2 });
    expect(await keysOf('55')).toEqual([]);
    expect(await schedulesOf('55')).toBe(0);
    expect(await keysOf('550')).toHaveLength(2);
    expect(await schedulesOf('550')).toBe(1);

    expect(await erase.execute('55', inTransaction)).toEqual({ objects: 0, schedules: 0 });
  });
});
