// An expired order's upload slots against real PostgreSQL (the uploads service's migrations), through the consumer's
// handler: the slots (file names, object keys, source URLs) are deleted, another order's stay, other statuses are
// skipped, and a redelivery changes nothing.
import { ManualClock } from '@cp/clock';
import { EventSubjects, OrderStatusChangedEvent, TestOrderRetentionEndedEvent } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, MESSAGING_ENTITIES, OutboxWriter, registeredConsumer } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { NewUploadSlot, UploadSlotsRepository } from '../slots/upload-slots.repository';
import { ForgetExpiredOrderSlotsUseCase } from './forget-expired-order-slots.use-case';
import { OrderExpiredConsumer } from './order-expired.consumer';
import { TestOrderRetentionEndedConsumer } from './test-order-retention-ended.consumer';

describe("an expired order's upload slots are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_expired_slots');
  let dataSource: DataSource;
  let slots: UploadSlotsRepository;
  let definition: ConsumerDefinition<OrderStatusChangedEvent>;
  let testOrderDefinition: ConsumerDefinition<TestOrderRetentionEndedEvent>;
  let nextFile = 7000;

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES], migrations: UPLOADS_MIGRATIONS, applicationName: 'it-expired-slots' });
    slots = new UploadSlotsRepository(dataSource, new OutboxWriter(new ManualClock(new Date('2026-11-01T00:00:00.000Z'))));
    definition = registeredConsumer<OrderStatusChangedEvent>((messaging) => new OrderExpiredConsumer(messaging, new ForgetExpiredOrderSlotsUseCase(slots)).onModuleInit());
    expect(definition.message?.subject).toBe(EventSubjects.orderStatusChanged);
    testOrderDefinition = registeredConsumer<TestOrderRetentionEndedEvent>((messaging) =>
      new TestOrderRetentionEndedConsumer(messaging, new ForgetExpiredOrderSlotsUseCase(slots)).onModuleInit(),
    );
    expect(testOrderDefinition.message?.subject).toBe(EventSubjects.testOrderRetentionEnded);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  /** A delivery as the messaging library runs it, without the inbox: the handler itself must be repeatable. */
  const deliver = (orderId: string, status: OrderStatusChangedEvent['status']): Promise<void> =>
    deliverDirectly(definition, new TransactionRepository(dataSource), { orderId, status } as OrderStatusChangedEvent, `status-${orderId}-${status}`);

  const slot = (orderId: string, fileName: string, sourceUrl: string | null = null): NewUploadSlot => {
    nextFile += 1;
    return { fileId: String(nextFile), orderId, accountId: '9', mode: 'live', orderType: 'watermarkEmbed', bucket: 'cp-inputs', objectKey: `9/${orderId}/inputs/${nextFile}/${fileName}`, sourceUrl };
  };

  const rowsOf = async (orderId: string): Promise<string[]> =>
    (await dataSource.getRepository(UploadSlotEntity).find({ where: { orderId }, order: { fileId: 'ASC' } })).map((row) => row.objectKey);

  it("deletes every slot of the expired order, file names and source URLs with them, and no other order's", async () => {
    const expired = [slot('21', 'Jane Doe passport.png'), slot('21', 'photo.jpg', 'https://files.example.com/photo.jpg?X-Amz-Signature=abc')];
    const kept = slot('22', 'John Roe.png');
    await slots.insertNew(null, [...expired, kept]);

    await deliver('21', 'complete');
    expect(await rowsOf('21')).toHaveLength(2);

    await deliver('21', 'expired');
    expect(await rowsOf('21')).toEqual([]);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM upload_slot WHERE object_key LIKE '%Jane Doe%' OR source_url IS NOT NULL`)).toEqual([{ n: 0 }]);
    expect(await rowsOf('22')).toEqual([kept.objectKey]);

    // A redelivery (or the event of an order without slots) deletes nothing more.
    await deliver('21', 'expired');
    expect(await rowsOf('22')).toEqual([kept.objectKey]);
  });

  it("deletes a test order's slots when its retention ended (it is never expired), and no other order's", async () => {
    const ended = [{ ...slot('31', 'Jane Doe.png', 'https://files.example.com/a.png?X-Amz-Signature=abc'), mode: 'test' as const }];
    const kept = { ...slot('32', 'John Roe.png'), mode: 'test' as const };
    await slots.insertNew(null, [...ended, kept]);
    const deliverEnded = (orderId: string): Promise<void> =>
      deliverDirectly(testOrderDefinition, new TransactionRepository(dataSource), { orderId, accountId: '9' }, `retention-ended-${orderId}`);
    await deliverEnded('31');
    expect(await rowsOf('31')).toEqual([]);
    expect(await rowsOf('32')).toEqual([kept.objectKey]);
    await deliverEnded('31');
    expect(await rowsOf('32')).toEqual([kept.objectKey]);
  });
});
