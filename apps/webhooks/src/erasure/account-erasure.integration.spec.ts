// An erased account's rows of the webhooks schema against real PostgreSQL (the webhooks service's migrations),
// through the consumer's handler: its webhooks, every delivery (pending too) and the owner's e-mail address go;
// another account's stay; a redelivery deletes nothing more. An erased order: its deliveries only (the webhooks and
// the contact address are the account's).
import { AccountErasureRequestedEvent, EventSubjects, OrderErasureRequestedEvent } from '@cp/contracts';
import { asTransaction, ErasedScopesRepository, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, registeredConsumer } from '@cp/messaging';
import { uniqueName } from '@cp/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openWebhooksTestDatabase } from '../__fixtures__/webhooks-test-kit';
import { WebhookDeliveriesRepository } from '../deliveries/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { AccountContactsRepository } from '../notifications/account-contacts.repository';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountWebhooksUseCase } from './erase-account-webhooks.use-case';
import { OrderErasureConsumer } from './order-erasure.consumer';
import { RememberAccountContactUseCase } from '../notifications/remember-account-contact.use-case';

describe("an erased account's webhooks rows are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_webhooks_erasure');
  const now = new Date('2026-11-30T00:00:00.000Z');
  let db: DataSource;
  let definition: ConsumerDefinition<AccountErasureRequestedEvent>;

  beforeAll(async () => {
    db = await openWebhooksTestDatabase(schema, 'it-webhooks-erasure');
    definition = registeredConsumer<AccountErasureRequestedEvent>((messaging) =>
      new AccountErasureConsumer(messaging, new EraseAccountWebhooksUseCase(new AccountErasureRepository(), new ErasedScopesRepository())).onModuleInit(),
    );
    expect(definition.message?.subject).toBe(EventSubjects.accountErasureRequested);
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  const seed = async (accountId: string, email: string): Promise<void> => {
    const endpoint = await new WebhookEndpointsRepository(db).create(asTransaction(db.manager), {
      owner: { accountId, mode: 'live' },
      name: 'erasure',
      url: `https://hooks.example.com/${accountId}`,
      secretCiphertext: 'v1:x',
      at: now,
    });
    await new AccountContactsRepository(db).remember(asTransaction(db.manager), accountId, email);
    const orderId = `${accountId}0`;
    await new WebhookDeliveriesRepository(db).insertNew(asTransaction(db.manager), [
      {
        webhookId: endpoint.id,
        accountId,
        sourceEventId: randomUUID(),
        eventId: randomUUID(),
        eventType: 'order.watermarkExtract.completed',
        orderId,
        occurredAt: now,
        data: { orderId, status: 'complete', watermarkInfo: { text: 'Jane Doe' } },
        download: null,
        links: [],
        status: 'PENDING',
        nextAttemptAt: now,
        createdAt: now,
      },
    ]);
  };

  const rowsOf = async (accountId: string): Promise<Record<string, number>> => {
    const count = async (table: string): Promise<number> => (await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId]))[0].n;
    return { webhooks: await count('webhook_endpoint'), deliveries: await count('webhook_delivery'), contacts: await count('account_contact') };
  };

  const erase = (accountId: string): Promise<void> =>
    deliverDirectly(definition, new TransactionRepository(db), { erasureId: '00000000-0000-4000-8000-000000000002', accountId }, `erasure-${accountId}`);

  it("deletes the account's webhooks, deliveries (pending too) and contact address, and no other account's", async () => {
    await seed('71', 'jane.doe@example.com');
    await seed('72', 'john.roe@example.com');
    expect(await rowsOf('71')).toEqual({ webhooks: 1, deliveries: 1, contacts: 1 });

    await erase('71');
    expect(await rowsOf('71')).toEqual({ webhooks: 0, deliveries: 0, contacts: 0 });
    expect(await db.query(`SELECT count(*)::int AS n FROM account_contact WHERE owner_email = 'jane.doe@example.com'`)).toEqual([{ n: 0 }]);
    expect(await rowsOf('72')).toEqual({ webhooks: 1, deliveries: 1, contacts: 1 });

    await erase('71');
    expect(await rowsOf('72')).toEqual({ webhooks: 1, deliveries: 1, contacts: 1 });

    // Review: the account's `account created` has a consumer of its own, which may handle it after the erasure; it
    // stored the owner's address again. Now it finds the erasure, and so does a webhook's creation.
    const erased = new ErasedScopesRepository();
    await db.transaction((manager) => new RememberAccountContactUseCase(new AccountContactsRepository(db), erased).execute(asTransaction(manager), '71', 'jane.doe@example.com'));
    expect(await rowsOf('71')).toEqual({ webhooks: 0, deliveries: 0, contacts: 0 });
    expect(await db.transaction((manager) => erased.isErased(asTransaction(manager), '71'))).toBe(true);
    expect(await db.transaction((manager) => erased.isErased(asTransaction(manager), '72'))).toBe(false);
  });
  it("deletes an erased order's deliveries and keeps the account's webhook and contact address", async () => {
    const orderDefinition = registeredConsumer<OrderErasureRequestedEvent>((messaging) => new OrderErasureConsumer(messaging, new EraseAccountWebhooksUseCase(new AccountErasureRepository(), new ErasedScopesRepository())).onModuleInit());
    expect(orderDefinition.message?.subject).toBe(EventSubjects.orderErasureRequested);
    await seed('73', 'jane.poe@example.com');
    const eraseOrder = (orderId: string): Promise<void> =>
      deliverDirectly(orderDefinition, new TransactionRepository(db), { erasureId: '00000000-0000-4000-8000-000000000003', accountId: '73', orderId }, `erasure-${orderId}`);

    await eraseOrder('999');
    expect(await rowsOf('73')).toEqual({ webhooks: 1, deliveries: 1, contacts: 1 });
    await eraseOrder('730');
    expect(await rowsOf('73')).toEqual({ webhooks: 1, deliveries: 0, contacts: 1 });
  });
});
