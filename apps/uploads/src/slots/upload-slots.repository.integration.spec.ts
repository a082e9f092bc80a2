// Upload slots against real PostgreSQL (the uploads service's own migrations): registration is idempotent
// per file id, a file is marked uploaded once, and the reconciliation reads only what it should.
import { ManualClock } from '@cp/clock';
import { openServiceDatabase, asTransaction } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { UploadSlotEntity } from './upload-slot.entity';
import { NewUploadSlot, UploadSlotsRepository } from './upload-slots.repository';

describe('UploadSlotsRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_slots');
  let dataSource: DataSource;
  let slots: UploadSlotsRepository;
  let nextFile = 1000;

  const slot = (orderId: string, overrides: Partial<NewUploadSlot> = {}): NewUploadSlot => {
    nextFile += 1;
    return { fileId: String(nextFile), orderId, accountId: '9', mode: 'live', orderType: 'watermarkEmbed', bucket: 'cp-inputs', objectKey: `9/${orderId}/inputs/${nextFile}/a.png`, sourceUrl: null, ...overrides };
  };

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES], migrations: UPLOADS_MIGRATIONS, applicationName: 'it-slots' });
    slots = new UploadSlotsRepository(dataSource, new OutboxWriter(new ManualClock(new Date('2026-11-01T00:00:00.000Z'))));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('registers each file once: a repeated registration inserts nothing and fetches no URL twice', async () => {
    const upload = slot('1');
    const byUrl = slot('1', { sourceUrl: 'https://images.example/a.png' });
    const first = await dataSource.transaction((tx) => slots.insertNew(asTransaction(tx), [upload, byUrl]));
    const again = await dataSource.transaction((tx) => slots.insertNew(asTransaction(tx), [upload, byUrl, { ...byUrl, sourceUrl: 'https://images.example/other.png' }]));
    expect(first).toEqual([expect.objectContaining({ ...upload, status: 'awaiting' }), expect.objectContaining({ ...byUrl, status: 'fetching' })]);
    expect(again).toEqual([]);
    // Without a transaction (nothing to publish with it) the insert is the same single statement.
    const alone = slot('1');
    expect(await slots.insertNew(null, [alone, upload])).toEqual([expect.objectContaining({ ...alone, status: 'awaiting' })]);
    const rows = await slots.findByFileIds(null, [upload.fileId, byUrl.fileId]);
    expect(rows.map((row) => [row.fileId, row.status, row.sourceUrl]).sort()).toEqual(
      [
        [upload.fileId, 'awaiting', null],
        [byUrl.fileId, 'fetching', 'https://images.example/a.png'],
      ].sort(),
    );
  });

  it('keeps the order type of a slot and refuses a waiting file once, never an uploaded one', async () => {
    const waiting = slot('3', { orderType: 'aiDetection' });
    const uploaded = slot('3', { orderType: null });
    await dataSource.transaction((tx) => slots.insertNew(asTransaction(tx), [waiting, uploaded]));
    await dataSource.transaction((tx) => slots.markUploaded(asTransaction(tx), uploaded.fileId, 10));
    expect(await dataSource.transaction((tx) => slots.markRefused(asTransaction(tx), waiting.fileId, 999, 'too large'))).toBe(true);
    expect(await dataSource.transaction((tx) => slots.markRefused(asTransaction(tx), waiting.fileId, 999, 'too large'))).toBe(false);
    expect(await dataSource.transaction((tx) => slots.markRefused(asTransaction(tx), uploaded.fileId, 999, 'too large'))).toBe(false);
    const rows = await dataSource.transaction((tx) => Promise.all([slots.lock(asTransaction(tx), waiting.fileId), slots.lock(asTransaction(tx), uploaded.fileId)]));
    expect(rows.map((row) => [row?.orderType, row?.status, row?.size, row?.failureReason])).toEqual([
      ['aiDetection', 'failed', '999', 'too large'],
      [null, 'uploaded', '10', null],
    ]);
  });

  it('marks a file uploaded once, for its order, and never a failed one', async () => {
    const waiting = slot('2');
    const refused = slot('2');
    await dataSource.transaction((tx) => slots.insertNew(asTransaction(tx), [waiting, refused]));
    expect(await dataSource.transaction((tx) => slots.markUploaded(asTransaction(tx), waiting.fileId, 321))).toEqual({ orderId: '2', traceparent: null });
    expect(await dataSource.transaction((tx) => slots.markUploaded(asTransaction(tx), waiting.fileId, 321))).toBeNull();
    await dataSource.transaction((tx) => slots.markFailed(asTransaction(tx), refused.fileId, 'x'.repeat(900)));
    expect(await dataSource.transaction((tx) => slots.markUploaded(asTransaction(tx), refused.fileId, 5))).toBeNull();
    const [uploaded, failed] = await Promise.all([slots.findOne(null, { fileId: waiting.fileId }), slots.findOne(null, { fileId: refused.fileId })]);
    expect(uploaded).toMatchObject({ status: 'uploaded', size: '321' });
    expect(failed?.status).toBe('failed');
    expect(failed?.failureReason).toHaveLength(500);
    expect(await dataSource.transaction((tx) => slots.findByObject(asTransaction(tx), 'cp-inputs', waiting.objectKey))).toMatchObject({ fileId: waiting.fileId });
  });

  it('finds only old live slots still waiting, least recently checked first', async () => {
    const [checked, unchecked, test, uploaded] = [slot('3'), slot('3'), slot('3', { mode: 'test' }), slot('3')];
    await dataSource.transaction((tx) => slots.insertNew(asTransaction(tx), [checked, unchecked, test, uploaded]));
    await dataSource.transaction(async (tx) => {
      await slots.markChecked(asTransaction(tx), checked.fileId, new Date());
      await slots.markUploaded(asTransaction(tx), uploaded.fileId, 1);
    });
    const settled = new Date(Date.now() + 60_000);
    const found = (await slots.findWaiting(settled, 1000)).filter((row: UploadSlotEntity) => row.orderId === '3').map((row) => row.fileId);
    expect(found).toEqual([unchecked.fileId, checked.fileId]);
    expect((await slots.findWaiting(new Date(Date.now() - 3600_000), 1000)).filter((row) => row.orderId === '3')).toEqual([]);
  });
});
