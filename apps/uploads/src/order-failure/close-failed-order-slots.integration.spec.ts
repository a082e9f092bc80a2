// A failed order's slots and inputs against real PostgreSQL (the uploads service's migrations) and a real S3
// server, through the consumer's handler: waiting slots are closed, an object that arrives for one later is
// deleted on arrival, the inputs of an order that never started are deleted, those of an order that had all its
// files are kept, and a redelivered event (its inbox row already written) changes nothing more.
import { ManualClock } from '@cp/clock';
import { EventSubjects, OrderFailedEvent } from '@cp/contracts';
import { asTransaction, openServiceDatabase } from '@cp/database';
import { ConsumerDefinition, HandlerContext, MESSAGING_ENTITIES, MessagingRuntime, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { startTestS3Server, TestS3Server, testStorageConfig, testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { NewUploadSlot, UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UploadsConfig } from '../uploads.config';
import { CLOSED_UPLOADED_REASON, CLOSED_WAITING_REASON, CloseFailedOrderSlotsUseCase } from './close-failed-order-slots.use-case';
import { OrderFailedConsumer } from './order-failed.consumer';

describe('a failed order closes its slots and frees its inputs (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_failed_slots');
  const config = { inputLimits: { watermark: 4096, aiDetection: 4096 } } as UploadsConfig;
  let s3: TestS3Server;
  let storage: ObjectStorage;
  let dataSource: DataSource;
  let slots: UploadSlotsRepository;
  let receive: ReceiveUploadUseCase;
  let handle: ConsumerDefinition<OrderFailedEvent>['handle'];
  let nextFile = 5000;
  // The inbox as the messaging library keeps it: an event's work runs (and commits) once, later deliveries skip it.
  const handled = new Set<string>();

  beforeAll(async () => {
    s3 = await startTestS3Server();
    storage = new ObjectStorage(testStorageConfig(s3.endpoint));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES], migrations: UPLOADS_MIGRATIONS, applicationName: 'it-failed-slots' });
    slots = new UploadSlotsRepository(dataSource, new OutboxWriter(new ManualClock(new Date('2026-11-01T00:00:00.000Z'))));
    receive = new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), storage);
    let registered: ConsumerDefinition<OrderFailedEvent> | undefined;
    const messaging = { register: (definition: ConsumerDefinition<OrderFailedEvent>) => (registered = definition) } as unknown as MessagingRuntime;
    new OrderFailedConsumer(messaging, new CloseFailedOrderSlotsUseCase(slots, storage)).onModuleInit();
    if (!registered) {
      throw new Error('the consumer registered nothing');
    }
    expect(registered.message?.subject).toBe(EventSubjects.orderFailed);
    handle = registered.handle.bind(registered);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  const deliver = (orderId: string, eventId = `order-failed-${orderId}`): Promise<void> => {
    const context: HandlerContext = {
      eventId,
      deliveryCount: 1,
      signal: new AbortController().signal,
      transaction: async (work) => {
        if (handled.has(eventId)) {
          return false;
        }
        await dataSource.transaction((manager) => work(asTransaction(manager)));
        handled.add(eventId);
        return true;
      },
    };
    return handle({ orderId } as OrderFailedEvent, context);
  };

  const slot = (orderId: string, overrides: Partial<NewUploadSlot> = {}): NewUploadSlot => {
    nextFile += 1;
    return { fileId: String(nextFile), orderId, accountId: '9', mode: 'live', orderType: 'watermarkEmbed', bucket: storage.buckets.inputs, objectKey: `9/${orderId}/inputs/${nextFile}/a.png`, sourceUrl: null, ...overrides };
  };

  /** The object lands in storage and its notification is handled, as `StorageEventsConsumer` does. */
  const arrive = async (file: NewUploadSlot, size = 100): Promise<void> => {
    await storage.put(file.bucket, file.objectKey, Buffer.alloc(size, 7));
    const received = await dataSource.transaction((tx) => receive.execute(asTransaction(tx), file.fileId, size));
    await receive.discard(received);
  };

  const stored = async (...files: NewUploadSlot[]): Promise<boolean[]> => Promise.all(files.map(async (file) => (await storage.stat(file.bucket, file.objectKey)) !== null));
  const rowsOf = async (orderId: string) =>
    (await dataSource.getRepository(UploadSlotEntity).find({ where: { orderId }, order: { fileId: 'ASC' } })).map((row) => [row.fileId, row.status, row.failureReason]);

  it('closes the waiting slots of an order that never had all its files, deletes its inputs, and deletes an object that arrives later', async () => {
    const [first, second, missing] = [slot('11'), slot('11'), slot('11')];
    await slots.insertNew(null, [first, second, missing]);
    await arrive(first);
    await arrive(second);
    expect(await stored(first, second)).toEqual([true, true]);

    await deliver('11');

    expect(await rowsOf('11')).toEqual([
      [first.fileId, 'failed', CLOSED_UPLOADED_REASON],
      [second.fileId, 'failed', CLOSED_UPLOADED_REASON],
      [missing.fileId, 'failed', CLOSED_WAITING_REASON],
    ]);
    expect(await stored(first, second)).toEqual([false, false]);
    // No upload URL is handed out for a closed slot (the RPC gives URLs to waiting slots only).
    expect((await slots.findOfOrder('11', [missing.fileId])).filter((row) => row.status === 'awaiting')).toEqual([]);

    // The last file's PUT lands after the failure (its URL still valid), and a second PUT to an uploaded one: both deleted on arrival.
    await arrive(missing);
    await arrive(first);
    expect(await stored(missing, first)).toEqual([false, false]);
    // Nothing told orders about either (the order is failed already).
    const outbox = await dataSource.getRepository(OutboxEventEntity).find();
    expect(outbox.filter((row) => JSON.stringify(row).includes(missing.fileId))).toEqual([]);
  });

  it('keeps the slots and inputs of an order whose files were all in when it failed (a job may still be reading them)', async () => {
    const [first, second] = [slot('12'), slot('12')];
    await slots.insertNew(null, [first, second]);
    await arrive(first);
    await arrive(second);

    await deliver('12');

    expect(await rowsOf('12')).toEqual([
      [first.fileId, 'uploaded', null],
      [second.fileId, 'uploaded', null],
    ]);
    expect(await stored(first, second)).toEqual([true, true]);
  });

  it('counts a refused file as one the order never had, and leaves the slots of other orders alone', async () => {
    const [fetched, refused] = [slot('13', { sourceUrl: 'https://images.example/a.png' }), slot('13')];
    const other = slot('14');
    await slots.insertNew(null, [fetched, refused, other]);
    await arrive(fetched);
    await arrive(refused, 5000);
    await arrive(other);
    expect(await stored(fetched, refused, other)).toEqual([true, false, true]);

    await deliver('13');

    expect(await rowsOf('13')).toEqual([
      [fetched.fileId, 'failed', CLOSED_UPLOADED_REASON],
      [refused.fileId, 'failed', 'upload of 5000 bytes is over the input limit of 4096 bytes'],
    ]);
    expect(await stored(fetched, other)).toEqual([false, true]);
    expect(await rowsOf('14')).toEqual([[other.fileId, 'uploaded', null]]);
  });

  it('is harmless when redelivered, and a redelivery deletes what a failed delete left', async () => {
    const [uploaded, waiting] = [slot('15'), slot('15')];
    await slots.insertNew(null, [uploaded, waiting]);
    await arrive(uploaded);

    await deliver('15');
    const closed = await dataSource.getRepository(UploadSlotEntity).find({ where: { orderId: '15' }, order: { fileId: 'ASC' } });
    // An object left behind (as after a delete that failed): the redelivery, whose closing the inbox skips, deletes it.
    await storage.put(uploaded.bucket, uploaded.objectKey, Buffer.alloc(10, 1));

    await deliver('15');
    await deliver('15', 'order-failed-15-another-copy');

    expect(await stored(uploaded, waiting)).toEqual([false, false]);
    const after = await dataSource.getRepository(UploadSlotEntity).find({ where: { orderId: '15' }, order: { fileId: 'ASC' } });
    expect(after.map((row) => [row.fileId, row.status, row.failureReason, row.size, row.updatedAt.getTime()])).toEqual(
      closed.map((row) => [row.fileId, row.status, row.failureReason, row.size, row.updatedAt.getTime()]),
    );
  });

  it('closes a slot whose upload notification waits on the order\'s lock, and then deletes its object on arrival', async () => {
    const [uploaded, late] = [slot('16'), slot('16')];
    await slots.insertNew(null, [uploaded, late]);
    await arrive(uploaded);
    await storage.put(late.bucket, late.objectKey, Buffer.alloc(100, 7));

    // The failure holds the order's slots; the notification of the late file waits for it, then finds its slot failed.
    const close = new CloseFailedOrderSlotsUseCase(slots, storage);
    let notified: Promise<void> | undefined;
    await dataSource.transaction(async (tx) => {
      await close.execute(asTransaction(tx), '16');
      // Its slot is locked by this transaction: the notification decides only once this committed.
      notified = dataSource.transaction((other) => receive.execute(asTransaction(other), late.fileId, 100)).then((received) => receive.discard(received));
    });
    await notified;
    await close.deleteInputs('16');

    expect(await rowsOf('16')).toEqual([
      [uploaded.fileId, 'failed', CLOSED_UPLOADED_REASON],
      [late.fileId, 'failed', CLOSED_WAITING_REASON],
    ]);
    expect(await stored(uploaded, late)).toEqual([false, false]);
  });

  it('reads an order\'s slots through idx_upload_slot_order, not the whole table', async () => {
    const plan = await dataSource.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const rows = await tx.query<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN SELECT * FROM "${schema}"."upload_slot" WHERE order_id = 11 FOR UPDATE`);
      return rows.map((line) => line['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('idx_upload_slot_order');
  });
});
