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

  it('says which files have a slot (the orders sweep of lost registrations)', async () => {
    const registered = slot('2');
    await slots.insertNew(null, [registered]);
    const unknown = String(BigInt(registered.fileId) + 1000000n);
    expect(await slots.knownFileIds([registered.fileId, unknown])).toEqual([registered.fileId]);
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
    const created = { after: new Date(Date.now() - 3600_000), before: new Date(Date.now() + 60_000) };
    const found = (await slots.findWaiting(created, 1000)).filter((row: UploadSlotEntity) => row.orderId === '3').map((row) => row.fileId);
    expect(found).toEqual([unchecked.fileId, checked.fileId]);
    expect((await slots.findWaiting({ ...created, before: new Date(Date.now() - 3600_000) }, 1000)).filter((row) => row.orderId === '3')).toEqual([]);
  });

  it('finds only the waiting slots created within the range: an old one (its order failed or was abandoned long ago) is no longer picked', async () => {
    const [old, recent] = [slot('4'), slot('4')];
    await slots.insertNew(null, [old, recent]);
    // The old one was checked least recently, so without the range it would come first.
    await dataSource.query(`UPDATE "${schema}"."upload_slot" SET created_at = now() - interval '14 hours', last_checked_at = now() - interval '1 hour' WHERE file_id = $1`, [old.fileId]);
    await dataSource.query(`UPDATE "${schema}"."upload_slot" SET created_at = now() - interval '12 hours 30 minutes', last_checked_at = now() WHERE file_id = $1`, [recent.fileId]);
    const created = { after: new Date(Date.now() - 13 * 3600_000), before: new Date(Date.now() - 60_000) };
    expect((await slots.findWaiting(created, 1000)).filter((row) => row.orderId === '4').map((row) => row.fileId)).toEqual([recent.fileId]);
    // The bound is inclusive at its start and leaves out what is newer than its end.
    const [row] = await dataSource.query<Array<{ created_at: Date }>>(`SELECT created_at FROM "${schema}"."upload_slot" WHERE file_id = $1`, [recent.fileId]);
    expect((await slots.findWaiting({ after: row.created_at, before: created.before }, 1000)).filter((found) => found.orderId === '4').map((found) => found.fileId)).toEqual([recent.fileId]);
    expect((await slots.findWaiting({ after: created.after, before: row.created_at }, 1000)).filter((found) => found.orderId === '4')).toEqual([]);
  });

  it('reads the waiting live slots of the range through idx_upload_slot_reconcile, not the whole table', async () => {
    const plan = await dataSource.transaction(async (tx) => {
      // Planner choice on a table this small is a sequential scan either way; what is asserted is that the index can serve the range.
      await tx.query('SET LOCAL enable_seqscan = off');
      const rows = await tx.query<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN SELECT * FROM "${schema}"."upload_slot" WHERE status = 'awaiting' AND mode = 'live' AND created_at >= now() - interval '13 hours' AND created_at < now() ORDER BY last_checked_at ASC NULLS FIRST LIMIT 100`,
      );
      return rows.map((line) => line['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('idx_upload_slot_reconcile');
  });
});
