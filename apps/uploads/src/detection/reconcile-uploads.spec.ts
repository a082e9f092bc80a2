// Safety net for lost storage notifications, against real PostgreSQL and a real S3 server.
import { ManualClock } from '@cp/clock';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { testInfra, testStorageConfig, uniqueName } from '@cp/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { DataSource, IsNull, Not } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UploadsConfig } from '../uploads.config';
import { ReconcileUploadsUseCase, STORAGE_FAILURES_TO_STOP } from './reconcile-uploads.use-case';

describe('ReconcileUploadsUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_uploads');
  const clock = new ManualClock(new Date());
  let s3: S3rver;
  let storage: ObjectStorage;
  let dataSource: DataSource;
  let reconcile: ReconcileUploadsUseCase;
  let storageEndpoint: string;
  const config = {
    reconcile: { intervalMs: 1000, minAgeMs: 10_000 },
    uploadWindowMs: 12 * 3600_000,
    uploadUrlSeconds: 900,
    inputLimits: { watermark: 4096, aiDetection: 4096 },
  } as UploadsConfig;

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await s3.run();
    storageEndpoint = `http://127.0.0.1:${port}`;
    storage = new ObjectStorage(testStorageConfig(storageEndpoint));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: UPLOADS_MIGRATIONS,
      applicationName: 'it',
    });
    const slots = new UploadSlotsRepository(dataSource, new OutboxWriter(clock));
    const receive = new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), storage);
    reconcile = new ReconcileUploadsUseCase(new TransactionRepository(dataSource), slots, config, storage, receive, clock);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  const slot = (fileId: string, objectKey: string): Partial<UploadSlotEntity> => ({
    fileId,
    orderId: '77',
    accountId: '5',
    mode: 'live',
    bucket: storage.buckets.inputs,
    objectKey,
    sourceUrl: null,
    status: 'awaiting',
  });

  it('marks a slot uploaded when its object is in storage, and tells orders once', async () => {
    await dataSource.getRepository(UploadSlotEntity).insert([slot('101', '5/77/inputs/101/a.png'), slot('102', '5/77/inputs/102/b.png')]);
    await storage.put(storage.buckets.inputs, '5/77/inputs/101/a.png', Buffer.alloc(1234, 1));

    expect(await reconcile.execute()).toBe(0); // too young: notifications may still be on their way
    clock.advance(60_000);
    expect(await reconcile.execute()).toBe(1);
    expect(await reconcile.execute()).toBe(0);

    const slots = await dataSource.getRepository(UploadSlotEntity).find({ order: { fileId: 'ASC' } });
    expect(slots.map((row) => [row.fileId, row.status, row.size])).toEqual([
      ['101', 'uploaded', '1234'],
      ['102', 'awaiting', null],
    ]);
    expect(slots[1].lastCheckedAt).not.toBeNull();
    const events = await dataSource.getRepository(OutboxEventEntity).find();
    expect(events.map((event) => [event.subject, event.envelope])).toEqual([
      ['evt.uploads.file.uploaded', expect.objectContaining({ data: { orderId: '77', fileId: '101', size: 1234 } })],
    ]);
  });

  it('refuses an object over the input limit of its order type: the slot fails, orders hears the code once, the object is deleted', async () => {
    await dataSource.getRepository(UploadSlotEntity).insert([{ ...slot('201', '5/78/inputs/201/big.png'), orderId: '78', orderType: 'watermarkEmbed' }]);
    await storage.put(storage.buckets.inputs, '5/78/inputs/201/big.png', Buffer.alloc(4097, 1));
    clock.advance(60_000);

    expect(await reconcile.execute()).toBe(0);
    expect(await storage.stat(storage.buckets.inputs, '5/78/inputs/201/big.png')).toBeNull();
    const [row] = await dataSource.getRepository(UploadSlotEntity).findBy({ fileId: '201' });
    expect([row.status, row.size]).toEqual(['failed', '4097']);
    const failures = async () => (await dataSource.getRepository(OutboxEventEntity).find()).filter((event) => event.subject === 'evt.uploads.file.failed');
    expect((await failures()).map((event) => [event.subject, event.envelope])).toEqual([
      ['evt.uploads.file.failed', expect.objectContaining({ data: { orderId: '78', fileId: '201', code: 'WATERMARK_FILE_TOO_LARGE' } })],
    ]);
    // A failed slot is no longer waiting: the next round neither looks at it nor announces anything again.
    clock.advance(60_000);
    expect(await reconcile.execute()).toBe(0);
    expect(await failures()).toHaveLength(1);
  });

  it('a slot storage answers with an error goes to the back of the rotation; the slots after it are still checked', async () => {
    // The outside review: a 508-byte object name (126 emoji; a key storage refuses) answered every stat with a
    // 500, ended each run first, and held back every other account's lost notification. Here the real S3 server
    // answers every other key, and that one key gets the error.
    const refusedKey = `5/81/inputs/401/${'🎉'.repeat(126)}.png`;
    const flaky = new (class extends ObjectStorage {
      override stat(bucket: string, key: string): ReturnType<ObjectStorage['stat']> {
        return key === refusedKey ? Promise.reject(new Error('Retryable HTTP status: 500')) : super.stat(bucket, key);
      }
    })(testStorageConfig(storageEndpoint));
    const slots = new UploadSlotsRepository(dataSource, new OutboxWriter(clock));
    const sweep = new ReconcileUploadsUseCase(new TransactionRepository(dataSource), slots, config, flaky, new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), flaky), clock);
    const earlier = new Date(clock.now().getTime() - 3600_000);
    await dataSource.getRepository(UploadSlotEntity).insert([
      { ...slot('401', refusedKey), orderId: '81' },
      { ...slot('402', '5/82/inputs/402/found.png'), orderId: '82', lastCheckedAt: earlier },
    ]);
    await storage.put(storage.buckets.inputs, '5/82/inputs/402/found.png', Buffer.alloc(30, 1));
    clock.advance(60_000);

    expect(await sweep.execute()).toBe(1);
    const rows = await dataSource.getRepository(UploadSlotEntity).find({ where: [{ fileId: '401' }, { fileId: '402' }], order: { fileId: 'ASC' } });
    expect(rows.map((row) => [row.fileId, row.status, row.lastCheckedAt?.getTime() ?? null])).toEqual([
      ['401', 'awaiting', clock.now().getTime()],
      ['402', 'uploaded', earlier.getTime()],
    ]);
  });

  it('stops a run when storage fails check after check, and the slots it tried go to the back', async () => {
    await dataSource.getRepository(UploadSlotEntity).update({ status: 'awaiting' }, { status: 'failed' });
    const broken = new ObjectStorage(testStorageConfig('http://127.0.0.1:1'));
    const slots = new UploadSlotsRepository(dataSource, new OutboxWriter(clock));
    const down = new ReconcileUploadsUseCase(new TransactionRepository(dataSource), slots, config, broken, new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), broken), clock);
    await dataSource.getRepository(UploadSlotEntity).insert(['501', '502', '503', '504'].map((fileId) => ({ ...slot(fileId, `5/83/inputs/${fileId}/a.png`), orderId: '83' })));
    clock.advance(60_000);

    await expect(down.execute()).rejects.toThrow(`storage answered ${STORAGE_FAILURES_TO_STOP} checks in a row with an error`);
    const checked = await dataSource.getRepository(UploadSlotEntity).count({ where: { orderId: '83', lastCheckedAt: Not(IsNull()) } });
    expect(checked).toBe(STORAGE_FAILURES_TO_STOP);
  });

  it('checks only slots that can still matter: one past the upload window and the longest URL is left alone, one a refreshed URL still reaches is found', async () => {
    await dataSource.getRepository(UploadSlotEntity).insert([
      { ...slot('301', '5/79/inputs/301/old.png'), orderId: '79' },
      { ...slot('302', '5/80/inputs/302/refreshed.png'), orderId: '80' },
    ]);
    await storage.put(storage.buckets.inputs, '5/79/inputs/301/old.png', Buffer.alloc(10, 1));
    await storage.put(storage.buckets.inputs, '5/80/inputs/302/refreshed.png', Buffer.alloc(20, 1));
    // 301: its order's 12-hour window closed, and the 1-hour URL of a refresh just before it ran out too (13 h).
    // 302: the window closed 30 minutes ago, but a v2 refresh-urls just before it gave a URL valid 1 hour.
    const age = (fileId: string, interval: string) => dataSource.query(`UPDATE "${schema}"."upload_slot" SET created_at = now() - $2::interval WHERE file_id = $1`, [fileId, interval]);
    await age('301', '13 hours 30 minutes');
    await age('302', '12 hours 30 minutes');
    clock.advance(60_000);

    expect(await reconcile.execute()).toBe(1);
    const rows = await dataSource.getRepository(UploadSlotEntity).find({ where: [{ fileId: '301' }, { fileId: '302' }], order: { fileId: 'ASC' } });
    // The old slot is not even looked at (no storage request, no check recorded).
    expect(rows.map((row) => [row.fileId, row.status, row.lastCheckedAt])).toEqual([
      ['301', 'awaiting', null],
      ['302', 'uploaded', null],
    ]);
  });
});
