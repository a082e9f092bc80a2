// Rolling deploys against real PostgreSQL: the one-statement order creation of the running release keeps working
// after a newer release's migration adds a `NOT NULL DEFAULT` column to every table the creation writes, and the
// new columns get their defaults (the statement names the columns it knows instead of writing a whole row type).
import { ManualClock } from '@cp/clock';
import { openServiceDatabase, serviceDataSourceOptions, tableSql, asTransaction } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { CreditBalanceEntity } from '../credits/credit-balance.entity';
import { CreditLedgerEntryEntity } from '../credits/credit-ledger-entry.entity';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { ORDERS_ENTITIES } from '../database/entities';
import { ORDERS_MIGRATIONS } from '../database/migrations';
import { Order } from '../domain/order';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { IdempotencyRepository } from './idempotency.repository';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity } from './order.entity';
import { OrdersRepository } from './orders.repository';

describe('order creation across a migration that adds NOT NULL DEFAULT columns (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders_migration');
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'));
  const accountId = '801';
  /** Every table one creation statement writes (the balance row of a new account included). */
  const written = [OrderEntity, OrderFileEntity, OrderOutputEntity, CreditLedgerEntryEntity, CreditBalanceEntity, OutboxEventEntity, IdempotencyRecordEntity];
  let dataSource: DataSource;
  let repository: OrdersRepository;
  const idempotency = new IdempotencyRepository();

  /** Creates an order exactly as `OrderCreationService` does: one statement with the idempotency record. */
  const create = (account: string, key: string): Promise<Order> =>
    dataSource.transaction(async (tx) => {
      const now = clock.now();
      const order = await repository.newOrder({
        order: {
          accountId: account,
          mode: 'live',
          type: 'watermarkEmbed',
          apiVersion: 'v3',
          creditsCharged: 1,
          options: null,
          expiresAt: new Date(now.getTime() + 3600_000),
          createdAt: now,
        },
        files: [{ role: 'input', fileName: 'photo.png', sourceUrl: null, mediaKind: 'image' }],
        outputs: (files) => [
          { fileId: `${files[0].id}-1`, inputFileId: files[0].id, inputPosition: 0, outputIndex: 0, watermarkText: 't', status: 'pending', mediaKind: 'image', objectKey: null, failureCode: null },
        ],
      });
      const scope = { accountId: account, mode: 'live' as const, operation: 'wtr-embed', idempotencyKey: key };
      await repository.insert(asTransaction(tx), order, order.created('order charge'), (batch) => idempotency.addInsert(batch, asTransaction(tx), scope, 'hash', order.id));
      return order;
    });
  /** A refund opens the balance row of an account that has none (the insert branch of the ledger). */
  const refundNewAccount = (account: string): Promise<void> =>
    dataSource.transaction((tx) => new CreditLedgerRepository().apply(asTransaction(tx), account, 1, `restore:${account}`, 'refund'));

  beforeAll(async () => {
    const options = { url: testInfra.databaseUrl, schema, entities: [...ORDERS_ENTITIES, ...MESSAGING_ENTITIES], migrations: ORDERS_MIGRATIONS, applicationName: 'it-migration' };
    await (await openServiceDatabase(options)).destroy();
    // Two connections (ids are taken on one while the creation's transaction holds the other): the creation
    // statement is prepared on them before the migration and reused after it.
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, poolSize: 2 })).initialize();
    repository = new OrdersRepository(dataSource, new OutboxWriter(clock), new CreditLedgerRepository());
    await dataSource.transaction((tx) => new CreditLedgerRepository().apply(asTransaction(tx), accountId, 100, 'grant:1', 'test grant'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('creates orders before and after the migration; the new columns hold their defaults', async () => {
    await create(accountId, 'k1');
    await create(accountId, 'k2');
    await refundNewAccount('802');

    for (const target of written) {
      const table = tableSql(dataSource.manager, target);
      await dataSource.query(`ALTER TABLE ${table} ADD COLUMN added_by_next_release text NOT NULL DEFAULT 'next-default'`);
    }

    const after = await create(accountId, 'k3');
    await refundNewAccount('803');
    const added = async (target: (typeof written)[number], where: string, value: string): Promise<string[]> =>
      (await dataSource.query<Array<{ v: string }>>(`SELECT added_by_next_release AS v FROM ${tableSql(dataSource.manager, target)} WHERE ${where} = $1`, [value])).map(
        (row) => row.v,
      );
    expect(await added(OrderEntity, 'id', after.id)).toEqual(['next-default']);
    expect(await added(OrderFileEntity, 'order_id', after.id)).toEqual(['next-default']);
    expect(await added(OrderOutputEntity, 'order_id', after.id)).toEqual(['next-default']);
    expect(await added(CreditLedgerEntryEntity, 'reference', `charge:${after.id}`)).toEqual(['next-default']);
    expect(await added(CreditBalanceEntity, 'account_id', '803')).toEqual(['next-default']);
    expect(await added(IdempotencyRecordEntity, 'order_id', after.id)).toEqual(['next-default']);
    const events = await dataSource.query<Array<{ v: string }>>(
      `SELECT added_by_next_release AS v FROM ${tableSql(dataSource.manager, OutboxEventEntity)} WHERE envelope->'data'->>'orderId' = $1`,
      [after.id],
    );
    expect(events.map((row) => row.v)).toEqual(['next-default']);
    expect(await repository.findOwned(after.id, accountId, 'live')).toMatchObject({ state: { id: after.id, status: 'pending' } });
  });
});
