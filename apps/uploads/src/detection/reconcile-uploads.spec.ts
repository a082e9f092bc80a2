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
import { DataSource } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UploadsConfig } from '../uploads.config';
import { ReconcileUploadsUseCase } from './reconcile-uploads.use-case';

describe('ReconcileUploadsUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_uploads');
  const clock = new ManualClock(new Date());
  let s3: S3rver;
  let storage: ObjectStorage;
  let dataSource: DataSource;
  let reconcile: ReconcileUploadsUseCase;

  beforeAll(async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await s3.run();
    storage = new ObjectStorage(testStorageConfig(`http://127.0.0.1:${port}`));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: UPLOADS_MIGRATIONS,
      applicationName: 'it',
    });
    const config = {
      reconcile: { intervalMs: 1000, minAgeMs: 10_000 },
      uploadWindowMs: 12 * 3600_000,
      uploadUrlSeconds: 900,
      inputLimits: { watermark: 4096, aiDetection: 4096 },
    } as UploadsConfig;
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
