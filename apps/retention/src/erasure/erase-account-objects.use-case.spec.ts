// An erased account's objects and schedules against real PostgreSQL and a real S3 server: every object under the
// account's prefix goes (not another account's whose id shares its digits), then its schedules; a key storage does
// not delete keeps the schedules for the redelivery; repeating it deletes nothing more. The erased prefix is looked at
// again (objects written late by jobs in flight), at the first look and the last; one order's erasure spares its siblings.
// Each look discards the messages parked since the erasure that name it (real NATS JetStream, stream PARKED).
import { ManualClock } from '@cp/clock';
import { ObjectKeys, PARKED_SUBJECT_PREFIX, Streams } from '@cp/contracts';
import { asTransaction, openServiceDatabase, TransactionRepository } from '@cp/database';
import { MESSAGING_ENTITIES, NatsConnectionService, ParkedHeaders, ParkedMessages } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { testInfra, testStorageConfig, uniqueName } from '@cp/testing';
import { headers as natsHeaders } from 'nats';
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
import { ErasedPrefixRepository } from './erased-prefix.repository';
import { ParkedMessagesRepository } from './parked-messages.repository';
import { RecheckErasedPrefixesUseCase, scopeOfPrefix } from './recheck-erased-prefixes.use-case';

/** Real storage whose bulk delete reports the keys in `failing` as not deleted (they stay), as S3 does per key. */
class FlakyStorage extends ObjectStorage {
  readonly failing = new Set<string>();

  override async removeEach(bucket: string, keys: string[]): Promise<string[]> {
    await super.removeEach(bucket, keys.filter((key) => !this.failing.has(key)));
    return keys.filter((key) => this.failing.has(key));
  }
}

describe('EraseAccountObjectsUseCase and RecheckErasedPrefixesUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_retention_erasure');
  let s3: S3rver;
  let storage: FlakyStorage;
  let dataSource: DataSource;
  let erase: EraseAccountObjectsUseCase;
  const expiries = new OrderExpiryRepository();
  const prefixes = new ErasedPrefixRepository();
  const clock = new ManualClock(new Date('2026-12-01T00:00:00.000Z'));
  const HOUR = 3600_000;
  const retention = { sweepIntervalMs: 1000, batchSize: 10, deleteConcurrency: 2, recheckMs: HOUR, leaseMs: 60_000, failedOrderGraceMs: 3 * HOUR };
  let recheck: RecheckErasedPrefixesUseCase;
  const nats = new NatsConnectionService({ url: testInfra.natsUrl, name: 'it-retention-erasure', streams: [Streams.parked] });

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
    erase = new EraseAccountObjectsUseCase(new OrderObjects(storage), expiries, prefixes, clock, { retention });
    await nats.connect();
    recheck = new RecheckErasedPrefixesUseCase(new TransactionRepository(dataSource), { retention }, prefixes, new OrderObjects(storage), new ParkedMessagesRepository(nats), clock);
  });

  afterAll(async () => {
    await nats.onApplicationShutdown();
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
    await expect(erase.execute({ accountId: '55' }, inTransaction)).rejects.toBeInstanceOf(AccountObjectsRemainError);
    expect(await keysOf('55')).toEqual([stuck]);
    expect(await schedulesOf('55')).toBe(2);

    storage.failing.clear();
    expect(await erase.execute({ accountId: '55' }, inTransaction)).toEqual({ objects: 1, schedules: 2 });
    expect(await keysOf('55')).toEqual([]);
    expect(await schedulesOf('55')).toBe(0);
    expect(await keysOf('550')).toHaveLength(2);
    expect(await schedulesOf('550')).toBe(1);

    expect(await erase.execute({ accountId: '55' }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
  });
  const lookedAt = async (prefix: string): Promise<Array<{ recheck_at: Date; final_recheck_at: Date; objects_deleted: number }>> =>
    dataSource.query('SELECT recheck_at, final_recheck_at, objects_deleted FROM erased_prefix WHERE prefix = $1', [prefix]);

  it('deletes an object a job in flight wrote after the erasure, at the first look and at the last, then forgets the prefix', async () => {
    await dataSource.query('DELETE FROM erased_prefix');
    expect(await erase.execute({ accountId: '77' }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
    const [row] = await lookedAt('77/');
    expect(row.recheck_at.getTime()).toBe(clock.now().getTime() + 3 * HOUR);
    expect(row.final_recheck_at.getTime()).toBe(clock.now().getTime() + 3 * HOUR + 7 * 24 * HOUR);

    // A render that was running stores its output after the erasure: not due yet, nothing deleted.
    const late = ObjectKeys.output('77', '9', '1-1', 'Jane Doe.png');
    await storage.put(storage.buckets.outputs, late, Buffer.from('late'));
    await storage.put(storage.buckets.outputs, ObjectKeys.output('770', '9', '1-1', 'other.png'), Buffer.from('other'));
    expect(await recheck.execute()).toBe(0);
    expect(await keysOf('77')).toEqual([late]);

    clock.advance(3 * HOUR);
    expect(await recheck.execute()).toBe(1);
    expect(await keysOf('77')).toEqual([]);
    expect(await keysOf('770')).toHaveLength(1);
    expect((await lookedAt('77/'))[0].objects_deleted).toBe(1);

    // A job that waited in JOBS for a worker that was down writes days later: the last look deletes it too.
    await storage.put(storage.buckets.reports, '77/9/reports/en-US.pdf', Buffer.from('pdf'));
    clock.advance(7 * 24 * HOUR);
    expect(await recheck.execute()).toBe(1);
    expect(await keysOf('77')).toEqual([]);
    expect(await lookedAt('77/')).toEqual([]);
    expect(await recheck.execute()).toBe(0);
  });

  it('keeps a prefix storage would not empty for the look after the lease, and erases one order without its siblings', async () => {
    await expiries.schedule(asTransaction(dataSource.manager), { orderId: '31', accountId: '88', expiresAt: new Date('2026-12-30T00:00:00.000Z'), mode: 'live' });
    await expiries.schedule(asTransaction(dataSource.manager), { orderId: '32', accountId: '88', expiresAt: new Date('2026-12-30T00:00:00.000Z'), mode: 'live' });
    await storage.put(storage.buckets.inputs, ObjectKeys.input('88', '31', '1', 'a.png'), Buffer.from('in'));
    await storage.put(storage.buckets.inputs, ObjectKeys.input('88', '32', '1', 'b.png'), Buffer.from('in'));
    expect(await erase.execute({ accountId: '88', orderId: '31' }, inTransaction)).toEqual({ objects: 1, schedules: 1 });
    expect(await keysOf('88')).toEqual([ObjectKeys.input('88', '32', '1', 'b.png')]);
    expect(await schedulesOf('88')).toBe(1);

    const stuck = ObjectKeys.output('88', '31', '1-1', 'late.png');
    await storage.put(storage.buckets.outputs, stuck, Buffer.from('late'));
    storage.failing.add(stuck);
    clock.advance(3 * HOUR);
    expect(await recheck.execute()).toBe(1);
    // Still leased: not claimed again before the lease runs out, then emptied.
    expect(await recheck.execute()).toBe(0);
    storage.failing.clear();
    clock.advance(retention.leaseMs);
    expect(await recheck.execute()).toBe(1);
    expect(await keysOf('88')).toEqual([ObjectKeys.input('88', '32', '1', 'b.png')]);
    expect((await lookedAt('88/31/'))[0].objects_deleted).toBe(1);
  });

  it('discards at its looks the messages parked after the erasure that name the erased accounts, not the others, reading PARKED once a batch', async () => {
    // Account ids no other spec uses: PARKED is one stream for the whole NATS server.
    const account = String(800_000 + Math.floor(Math.random() * 90_000));
    const second = `${account}1`;
    const durable = uniqueName('itre');
    const park = async (data: object): Promise<number> => {
      const headers = natsHeaders();
      headers.set(ParkedHeaders.subject, 'job.watermark.embed');
      headers.set(ParkedHeaders.durable, durable);
      headers.set(ParkedHeaders.reason, 'a test message');
      const body = new TextEncoder().encode(JSON.stringify({ eventId: 'e', subject: 'job.watermark.embed', occurredAt: '', data }));
      return (await nats.js.publish(`${PARKED_SUBJECT_PREFIX}.${durable}`, body, { headers })).seq;
    };
    const left = async (): Promise<number[]> => (await new ParkedMessages(nats.js, nats.jsm).list(durable)).map((message) => message.seq);
    const parkedRepository = new ParkedMessagesRepository(nats);
    const reads = jest.spyOn(parkedRepository, 'discardNaming');
    const counted = new RecheckErasedPrefixesUseCase(new TransactionRepository(dataSource), { retention }, prefixes, new OrderObjects(storage), parkedRepository, clock);
    try {
      await dataSource.query('DELETE FROM erased_prefix');
      expect(await erase.execute({ accountId: account }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
      expect(await erase.execute({ accountId: second }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
      // Jobs in flight at the erasures give up afterwards: parked with their recipients' names.
      const named = await park({ accountId: account, orderId: '5', text: 'Jane Doe' });
      const ofSecond = await park({ accountId: second, orderId: '7', text: 'John Doe' });
      const other = await park({ accountId: `${account}0`, orderId: '6', text: 'Jane Roe' });
      // Not due yet: all stay.
      expect(await counted.execute()).toBe(0);
      expect(await left()).toEqual([named, ofSecond, other]);
      clock.advance(3 * HOUR);
      expect(await counted.execute()).toBe(2);
      expect(await left()).toEqual([other]);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(reads.mock.calls[0][0]).toEqual([{ accountId: account }, { accountId: second }]);
    } finally {
      await nats.jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
    }
  });

  it('keeps a row that is not an account or order prefix, looking at the others of its batch', async () => {
    await dataSource.query('DELETE FROM erased_prefix');
    expect(await erase.execute({ accountId: '67' }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
    await dataSource.query(`INSERT INTO erased_prefix (prefix, recheck_at, final_recheck_at) SELECT 'hand-made/', recheck_at, final_recheck_at FROM erased_prefix WHERE prefix = '67/'`);
    clock.advance(3 * HOUR);
    expect(await recheck.execute()).toBe(2);
    expect((await lookedAt('67/'))[0].recheck_at.getTime()).toBeGreaterThan(clock.now().getTime() + 6 * 24 * HOUR);
    expect((await lookedAt('hand-made/'))[0].recheck_at.getTime()).toBe(clock.now().getTime());
  });

  it('keeps a look whose parked messages could not be looked at (NATS not reached) for the look after the lease', async () => {
    await dataSource.query('DELETE FROM erased_prefix');
    expect(await erase.execute({ accountId: '66' }, inTransaction)).toEqual({ objects: 0, schedules: 0 });
    const unreached = new RecheckErasedPrefixesUseCase(
      new TransactionRepository(dataSource),
      { retention },
      prefixes,
      new OrderObjects(storage),
      new ParkedMessagesRepository(new NatsConnectionService({ url: 'nats://127.0.0.1:1', name: 'it-retention-unreached' })),
      clock,
    );
    clock.advance(3 * HOUR);
    expect(await unreached.execute()).toBe(1);
    // Still its first look: leased, then claimed again and done once NATS answers.
    expect((await lookedAt('66/'))[0].recheck_at.getTime()).toBe(clock.now().getTime());
    clock.advance(retention.leaseMs);
    expect(await recheck.execute()).toBe(1);
    expect((await lookedAt('66/'))[0].recheck_at.getTime()).toBeGreaterThan(clock.now().getTime() + 6 * 24 * HOUR);
  });

  it('reads the account, or the order of it, an erased prefix is of', () => {
    expect(scopeOfPrefix('77/')).toEqual({ accountId: '77' });
    expect(scopeOfPrefix('88/31/')).toEqual({ accountId: '88', orderId: '31' });
    expect(scopeOfPrefix('88/31/inputs/')).toBeNull();
  });
});
