// An expired order's webhook deliveries on real PostgreSQL (the webhooks service's migrations), through the
// consumer's handler: every delivery of the order goes (ended or still pending, its payload naming files and the
// detected recipient), another order's stay, other statuses are skipped, and a redelivery deletes nothing more.
import { EventSubjects, OrderStatusChangedEvent, TestOrderRetentionEndedEvent } from '@cp/contracts';
import { asTransaction, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, registeredConsumer } from '@cp/messaging';
import { uniqueName } from '@cp/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openWebhooksTestDatabase } from '../__fixtures__/webhooks-test-kit';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { ForgetExpiredOrderDeliveriesUseCase } from './forget-expired-order-deliveries.use-case';
import { OrderExpiredConsumer } from './order-expired.consumer';
import { TestOrderRetentionEndedConsumer } from './test-order-retention-ended.consumer';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';

describe("an expired order's webhook deliveries are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_webhooks_expired');
  const now = new Date('2026-12-15T12:00:00.000Z');
  let db: DataSource;
  let deliveries: WebhookDeliveriesRepository;
  let definition: ConsumerDefinition<OrderStatusChangedEvent>;
  let testOrderDefinition: ConsumerDefinition<TestOrderRetentionEndedEvent>;
  let webhookId: number;

  beforeAll(async () => {
    db = await openWebhooksTestDatabase(schema, 'it-expired-deliveries');
    deliveries = new WebhookDeliveriesRepository(db);
    const endpoint = await new WebhookEndpointsRepository(db).create(asTransaction(db.manager), {
      owner: { accountId: '42', mode: 'live' },
      name: 'expiry',
      url: 'https://hooks.example.com/expiry',
      secretCiphertext: 'v1:x',
      at: now,
    });
    webhookId = endpoint.id;
    definition = registeredConsumer<OrderStatusChangedEvent>((messaging) => new OrderExpiredConsumer(messaging, new ForgetExpiredOrderDeliveriesUseCase(deliveries)).onModuleInit());
    expect(definition.message?.subject).toBe(EventSubjects.orderStatusChanged);
    testOrderDefinition = registeredConsumer<TestOrderRetentionEndedEvent>((messaging) =>
      new TestOrderRetentionEndedConsumer(messaging, new ForgetExpiredOrderDeliveriesUseCase(deliveries)).onModuleInit(),
    );
    expect(testOrderDefinition.message?.subject).toBe(EventSubjects.testOrderRetentionEnded);
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  /** A delivery as the messaging library runs it, without the inbox: the handler itself must be repeatable. */
  const deliver = (orderId: string, status: OrderStatusChangedEvent['status']): Promise<void> =>
    deliverDirectly(definition, new TransactionRepository(db), { orderId, status } as OrderStatusChangedEvent, `status-${orderId}-${status}`);

  /** A delivery of an extract order's completed event, left in `status`. */
  const delivery = async (orderId: string, status: 'PENDING' | 'SUCCESS' | 'FAILED'): Promise<void> => {
    const sourceEventId = randomUUID();
    await deliveries.insertNew(asTransaction(db.manager), [
      {
        webhookId,
        accountId: '42',
        sourceEventId,
        eventId: randomUUID(),
        eventType: 'order.watermarkExtract.completed',
        orderId,
        occurredAt: now,
        data: { orderId, status: 'complete', watermarkInfo: { text: 'Jane Doe' } },
        download: null,
        links: [{ field: 'reportUrl', object: { bucket: 'cp-outputs', key: `42/${orderId}/inputs/1/Jane Doe.png`, fileName: 'Jane Doe.png' } }],
        status: 'PENDING',
        nextAttemptAt: now,
        createdAt: now,
      },
    ]);
    if (status !== 'PENDING') {
      await db.query(`UPDATE webhook_delivery SET status = $2, completed_at = $3, next_attempt_at = NULL WHERE source_event_id = $1`, [sourceEventId, status, now]);
    }
  };

  const countOf = async (orderId: string): Promise<number> =>
    Number((await db.query<Array<{ n: string }>>('SELECT count(*) AS n FROM webhook_delivery WHERE order_id = $1', [orderId]))[0].n);

  it("deletes every delivery of the expired order, pending ones too, and no other order's", async () => {
    await delivery('1001', 'SUCCESS');
    await delivery('1001', 'FAILED');
    await delivery('1001', 'PENDING');
    await delivery('1002', 'SUCCESS');

    await deliver('1001', 'complete');
    expect(await countOf('1001')).toBe(3);

    await deliver('1001', 'expired');
    expect(await countOf('1001')).toBe(0);
    expect(await countOf('1002')).toBe(1);

    await deliver('1001', 'expired');
    expect(await countOf('1002')).toBe(1);
  });

  it("deletes every delivery of a test order whose retention ended (it is never expired), pending ones too, and no other order's", async () => {
    await delivery('1101', 'SUCCESS');
    await delivery('1101', 'PENDING');
    await delivery('1102', 'SUCCESS');
    const ended = (orderId: string): Promise<void> =>
      deliverDirectly(testOrderDefinition, new TransactionRepository(db), { orderId, accountId: '42' }, `retention-ended-${orderId}`);

    await ended('1101');
    expect(await countOf('1101')).toBe(0);
    expect(await countOf('1102')).toBe(1);
    await ended('1101');
    expect(await countOf('1102')).toBe(1);
  });

  it('has the index the deletion reads (no drift between the entities and the migrations)', async () => {
    const pending = await db.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
});
