// An erased account's rows of the orders schema against real PostgreSQL (orders' migrations), through the consumer's
// handler: its orders with their files, outputs (watermark texts) and report states, its idempotency records and its
// credits go; another account's stay; a redelivery deletes nothing more. One order's erasure (`orders.erase-order`):
// its rows only, with the event announced in the same transaction; its credits stay charged; unknown: RESOURCE_NOT_FOUND.
import { ManualClock } from '@cp/clock';
import { AccountErasureRequestedEvent, DomainException, EmbedJob, ErrorCode, Events, EventSubjects, Jobs, sharedJob } from '@cp/contracts';
import { asTransaction, ErasedScopesRepository, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, OutboxWriter, registeredConsumer } from '@cp/messaging';
import { uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { openOrdersTestDatabase } from '../__fixtures__/orders-test-database';
import { OrderErasure1798100000000 } from '../database/migrations/1798100000000-OrderErasure';
import { ApplyCreditGrantUseCase } from '../credits/apply-credit-grant.use-case';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { OpenAccountLedgerUseCase } from '../credits/open-account-ledger.use-case';
import { IdempotencyRecordEntity } from '../orders/idempotency-record.entity';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderReportEntity } from '../orders/order-report.entity';
import { OrderEntity } from '../orders/order.entity';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountOrdersUseCase } from './erase-account-orders.use-case';
import { EraseOrderUseCase } from './erase-order.use-case';

describe("an erased account's order records are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_orders_erasure');
  const now = new Date('2026-11-30T00:00:00.000Z');
  let dataSource: DataSource;
  let definition: ConsumerDefinition<AccountErasureRequestedEvent>;
  const ledger = new CreditLedgerRepository();

  beforeAll(async () => {
    dataSource = await openOrdersTestDatabase(schema, 'it-orders-erasure');
    definition = registeredConsumer<AccountErasureRequestedEvent>((messaging) =>
      new AccountErasureConsumer(messaging, new EraseAccountOrdersUseCase(new AccountErasureRepository(new OutboxWriter(new ManualClock(now))), new ErasedScopesRepository())).onModuleInit(),
    );
    expect(definition.message?.subject).toBe(EventSubjects.accountErasureRequested);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  /** An order of the account with one file, one output naming its recipient, a report state, an idempotency record. */
  const seed = async (accountId: string, recipient: string): Promise<string> => {
    const order = await dataSource.getRepository(OrderEntity).save({
      accountId,
      mode: 'live' as const,
      type: 'watermarkEmbed' as const,
      apiVersion: 'v3' as const,
      status: 'complete' as const,
      processingDelayed: false,
      creditsCharged: 1,
      packageKey: null,
      expiresAt: new Date(now.getTime() + 30 * 24 * 3600_000),
      createdAt: now,
    });
    const file = await dataSource.getRepository(OrderFileEntity).save({
      orderId: order.id,
      position: 0,
      role: 'input' as const,
      fileName: `${recipient}.png`,
      sourceUrl: null,
      mediaKind: 'image' as const,
      status: 'uploaded' as const,
    });
    await dataSource.getRepository(OrderOutputEntity).save({
      fileId: `${file.id}-1`,
      orderId: order.id,
      inputFileId: file.id,
      inputPosition: 0,
      outputIndex: 0,
      watermarkText: recipient,
      status: 'completed' as const,
      mediaKind: 'image' as const,
      objectKey: null,
      failureCode: null,
    });
    await dataSource.getRepository(OrderReportEntity).save({ orderId: order.id, locale: 'en-US', status: 'completed', changedAt: now });
    await dataSource.getRepository(IdempotencyRecordEntity).save({ accountId, mode: 'live', operation: 'embed', idempotencyKey: `key-${order.id}`, requestHash: 'a'.repeat(64), orderId: order.id });
    await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, 10, `grant:${order.id}`, 'grant'));
    return order.id;
  };

  const rowsOf = async (accountId: string, orderId: string): Promise<Record<string, number>> => {
    const count = async (sql: string, param: string): Promise<number> => (await dataSource.query<Array<{ n: number }>>(sql, [param]))[0].n;
    return {
      orders: await count('SELECT count(*)::int AS n FROM "order" WHERE account_id = $1', accountId),
      files: await count('SELECT count(*)::int AS n FROM order_file WHERE order_id = $1', orderId),
      outputs: await count('SELECT count(*)::int AS n FROM order_output WHERE order_id = $1', orderId),
      reports: await count('SELECT count(*)::int AS n FROM order_report WHERE order_id = $1', orderId),
      idempotency: await count('SELECT count(*)::int AS n FROM idempotency_record WHERE account_id = $1', accountId),
      ledger: await count('SELECT count(*)::int AS n FROM credit_ledger_entry WHERE account_id = $1', accountId),
      balance: await count('SELECT count(*)::int AS n FROM credit_balance WHERE account_id = $1', accountId),
    };
  };

  const erase = (accountId: string): Promise<void> =>
    deliverDirectly(definition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000001', accountId }, `erasure-${accountId}`);

  it("releases the held jobs of the account's unfinished orders, so the relay never sends them", async () => {
    const orderId = await seed('603', 'Jane Poe');
    await dataSource.getRepository(OrderEntity).update({ id: orderId }, { status: 'inProgress' });
    const job: EmbedJob = {
      orderId,
      accountId: '603',
      outputFileId: `${orderId}-1`,
      text: 'Jane Poe',
      mediaKind: 'image',
      input: { bucket: 'cp-inputs', key: `603/${orderId}/inputs/1/Jane Poe.png`, fileName: 'Jane Poe.png' },
      output: { bucket: 'cp-outputs', key: `603/${orderId}/outputs/1-1/Jane Poe.png`, fileName: 'Jane Poe.png' },
    };
    await dataSource.transaction((manager) =>
      new OutboxWriter(new ManualClock(now)).addAll(asTransaction(manager), [sharedJob(Jobs.watermarkEmbed, job, { accountId: '603', order: orderId, limit: 1 })]),
    );
    const held = async (): Promise<unknown> => dataSource.query(`SELECT share_released_at IS NOT NULL AS released FROM outbox_event WHERE share_order = $1`, [orderId]);
    expect(await held()).toEqual([{ released: false }]);
    await erase('603');
    expect(await held()).toEqual([{ released: true }]);
    expect(await rowsOf('603', orderId)).toMatchObject({ orders: 0, outputs: 0 });
  });

  it("deletes every order record, idempotency record and credit of the account, and no other account's", async () => {
    const erasedOrder = await seed('601', 'Jane Doe');
    const keptOrder = await seed('602', 'John Roe');
    const everything = { orders: 1, files: 1, outputs: 1, reports: 1, idempotency: 1, ledger: 1, balance: 1 };
    expect(await rowsOf('601', erasedOrder)).toEqual(everything);

    await erase('601');
    expect(await rowsOf('601', erasedOrder)).toEqual({ orders: 0, files: 0, outputs: 0, reports: 0, idempotency: 0, ledger: 0, balance: 0 });
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM order_output WHERE watermark_text = 'Jane Doe'`)).toEqual([{ n: 0 }]);
    expect(await rowsOf('602', keptOrder)).toEqual(everything);

    // A redelivery deletes nothing more.
    await erase('601');
    expect(await rowsOf('602', keptOrder)).toEqual(everything);
  });
  // Review: the account's `account created` and `credits granted` events have consumers of their own, which may handle
  // them after the erasure (a backlog, a redelivery, a replay): they opened its ledger again (1 entry, balance 500).
  it("a grant or an opening of the ledger handled after the erasure writes nothing; one under way is waited for and then erased", async () => {
    const erased = new ErasedScopesRepository();
    const grant = new ApplyCreditGrantUseCase(ledger, erased);
    const open = new OpenAccountLedgerUseCase(ledger, erased);
    const orderId = await seed('605', 'Jane Roe');
    await erase('605');
    await dataSource.transaction((manager) => grant.execute(asTransaction(manager), { grantId: '00000000-0000-4000-8000-000000000605', accountId: '605', amount: 500, reason: 'late' }));
    await dataSource.transaction((manager) => open.execute(asTransaction(manager), '605'));
    expect(await rowsOf('605', orderId)).toMatchObject({ ledger: 0, balance: 0 });

    // A grant whose transaction is open when the erasure starts: the erasure waits for it, then deletes what it wrote.
    await seed('606', 'John Poe');
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await grant.execute(asTransaction(runner.manager), { grantId: '00000000-0000-4000-8000-000000000606', accountId: '606', amount: 500, reason: 'racing' });
      let erasureDone = false;
      const erasing = erase('606').then(() => {
        erasureDone = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(erasureDone).toBe(false);
      await runner.commitTransaction();
      await erasing;
    } finally {
      await runner.release();
    }
    expect(await rowsOf('606', '0')).toMatchObject({ ledger: 0, balance: 0 });
  });

  it("erases one order (its rows, not its sibling's nor the account's credits) and announces it in the same transaction", async () => {
    const erasedOrder = await seed('604', 'Jane Doe');
    const sibling = await seed('604', 'John Doe');
    await dataSource.getRepository(OrderEntity).update({ id: erasedOrder }, { status: 'inProgress' });
    const clock = new ManualClock(now);
    const eraseOrder = new EraseOrderUseCase(new TransactionRepository(dataSource), new AccountErasureRepository(new OutboxWriter(clock)), new OutboxWriter(clock));
    const count = async (sql: string, param: string): Promise<number> => (await dataSource.query<Array<{ n: number }>>(sql, [param]))[0].n;

    // An order id of another account (a typo) erases nothing.
    await expect(eraseOrder.execute({ orderId: erasedOrder, accountId: '605' })).rejects.toEqual(new DomainException(ErrorCode.RESOURCE_NOT_FOUND));
    const view = await eraseOrder.execute({ orderId: erasedOrder, accountId: '604' });
    expect(view).toMatchObject({ accountId: '604', orderId: erasedOrder, status: 'inProgress', requestedAt: now.toISOString(), repeated: false });
    expect(await rowsOf('604', erasedOrder)).toEqual({ orders: 1, files: 0, outputs: 0, reports: 0, idempotency: 1, ledger: 2, balance: 1 });
    expect(await rowsOf('604', sibling)).toMatchObject({ files: 1, outputs: 1, reports: 1 });
    expect(await count('SELECT count(*)::int AS n FROM "order" WHERE id = $1', erasedOrder)).toBe(0);
    const events = await dataSource.query<Array<{ subject: string; envelope: { data: unknown } }>>(`SELECT subject, envelope FROM outbox_event WHERE subject = $1`, [EventSubjects.orderErasureRequested]);
    expect(events.map((event) => [event.subject, event.envelope.data])).toEqual([
      [EventSubjects.orderErasureRequested, { erasureId: view.erasureId, accountId: '604', orderId: erasedOrder }],
    ]);

    // Asked again (the first answer lost on the way), a minute later: that erasure's answer, nothing more written; for
    // another account, still nothing.
    clock.advance(60_000);
    expect(await eraseOrder.execute({ orderId: erasedOrder, accountId: '604' })).toEqual({ ...view, status: null, repeated: true });
    await expect(eraseOrder.execute({ orderId: erasedOrder, accountId: '605' })).rejects.toEqual(new DomainException(ErrorCode.RESOURCE_NOT_FOUND));
    expect(await count('SELECT count(*)::int AS n FROM outbox_event WHERE subject = $1', EventSubjects.orderErasureRequested)).toBe(1);
    expect(await rowsOf('604', sibling)).toMatchObject({ files: 1, outputs: 1, reports: 1 });

    // A month later, the relay's day of published events long gone from the outbox: still that erasure.
    await dataSource.query(`DELETE FROM outbox_event WHERE subject = $1`, [EventSubjects.orderErasureRequested]);
    clock.advance(30 * 24 * 3600_000);
    expect(await eraseOrder.execute({ orderId: erasedOrder, accountId: '604' })).toEqual({ ...view, status: null, repeated: true });
    await expect(eraseOrder.execute({ orderId: erasedOrder, accountId: '605' })).rejects.toEqual(new DomainException(ErrorCode.RESOURCE_NOT_FOUND));
  });

  it("the upgrade records the order erasures the outbox still holds, once per order, with their first erasure's id", async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.query(`SET search_path TO "${schema}"`);
      await new OrderErasure1798100000000().down(runner);
      const outbox = new OutboxWriter(new ManualClock(now));
      const first = { erasureId: '00000000-0000-4000-8000-000000000011', accountId: '611', orderId: '9001' };
      await dataSource.transaction(async (manager) => {
        const tx = asTransaction(manager);
        await outbox.add(tx, Events.orderErasureRequested, first, first.erasureId);
        await outbox.add(tx, Events.orderErasureRequested, { ...first, erasureId: '00000000-0000-4000-8000-000000000012' });
        await outbox.add(tx, Events.orderErasureRequested, { erasureId: '00000000-0000-4000-8000-000000000013', accountId: '612', orderId: '9002' });
      });
      await new OrderErasure1798100000000().up(runner);
      const rows = await dataSource.query<Array<{ order_id: string; account_id: string; erasure_id: string; requested_at: Date }>>(
        'SELECT order_id::text, account_id::text, erasure_id::text, requested_at FROM order_erasure WHERE order_id IN (9001, 9002) ORDER BY order_id',
      );
      expect(rows).toEqual([
        { order_id: '9001', account_id: '611', erasure_id: first.erasureId, requested_at: now },
        { order_id: '9002', account_id: '612', erasure_id: '00000000-0000-4000-8000-000000000013', requested_at: now },
      ]);
      const eraseOrder = new EraseOrderUseCase(new TransactionRepository(dataSource), new AccountErasureRepository(outbox), outbox);
      expect(await eraseOrder.execute({ orderId: '9001', accountId: '611' })).toEqual({
        erasureId: first.erasureId,
        accountId: '611',
        orderId: '9001',
        status: null,
        requestedAt: now.toISOString(),
        repeated: true,
      });
    } finally {
      await runner.release();
    }
  });
});
