// An erased account's issuances against real PostgreSQL (the processor's migrations), through the consumer's
// handler: every issuance of the account (recipient texts, input keys) goes, another account's stay, a redelivery
// deletes nothing more. An erased order (`evt.orders.order.erasure-requested`, its own consumer): that order's
// issuances only. A job in flight asking for an issuance of an erased account or order afterwards is refused
// (ErasedOrderError: the job is dropped), so no recipient text comes back.
import { AccountErasureRequestedEvent, EventSubjects, OrderErasureRequestedEvent } from '@cp/contracts';
import { asTransaction, ErasedScopesRepository, openServiceDatabase, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, MESSAGING_ENTITIES, registeredConsumer } from '@cp/messaging';
import { ErasedOrderError } from '@cp/runtime';
import { testInfra, uniqueName, waitUntil } from '@cp/testing';
import { DataSource } from 'typeorm';
import { WATERMARK_ENTITIES } from '../database/entities';
import { WATERMARK_MIGRATIONS } from '../database/migrations';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountIssuancesUseCase } from './erase-account-issuances.use-case';
import { OrderErasureConsumer } from './order-erasure.consumer';

describe("an erased account's issuances are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_issuance_erasure');
  let dataSource: DataSource;
  let definition: ConsumerDefinition<AccountErasureRequestedEvent>;

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...WATERMARK_ENTITIES, ...MESSAGING_ENTITIES], migrations: WATERMARK_MIGRATIONS, applicationName: 'it-issuance-erasure' });
    definition = registeredConsumer<AccountErasureRequestedEvent>((messaging) =>
      new AccountErasureConsumer(messaging, new EraseAccountIssuancesUseCase(new AccountErasureRepository(), new ErasedScopesRepository())).onModuleInit(),
    );
    expect(definition.message?.subject).toBe(EventSubjects.accountErasureRequested);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const textsOf = async (accountId: string): Promise<string[]> =>
    (await dataSource.query<Array<{ watermark_text: string }>>('SELECT watermark_text FROM issuance WHERE account_id = $1 ORDER BY watermark_text', [accountId])).map((row) => row.watermark_text);

  it("deletes every issuance of the account, of every order, and no other account's", async () => {
    const issuances = new IssuanceRepository(dataSource, new ErasedScopesRepository());
    const issue = (accountId: string, orderId: string, text: string) =>
      dataSource.transaction((tx) =>
        issuances.findOrCreate(asTransaction(tx), { accountId, orderId, outputFileId: `${orderId}-1`, watermarkText: text, algorithm: 'v3', inputKey: `${accountId}/${orderId}/inputs/1/${text}.png`, scrambled: true }),
      );
    await issue('91', '900', 'Jane Doe');
    await issue('91', '901', 'Jane Roe');
    await issue('92', '902', 'John Roe');
    const erase = (): Promise<void> =>
      deliverDirectly(definition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000004', accountId: '91' }, 'erasure-91');

    await erase();
    expect(await textsOf('91')).toEqual([]);
    expect(await textsOf('92')).toEqual(['John Roe']);
    await erase();
    expect(await textsOf('92')).toEqual(['John Roe']);
  });
  it("deletes the erased order's issuances only, and again nothing more on a redelivery", async () => {
    const orderDefinition = registeredConsumer<OrderErasureRequestedEvent>((messaging) =>
      new OrderErasureConsumer(messaging, new EraseAccountIssuancesUseCase(new AccountErasureRepository(), new ErasedScopesRepository())).onModuleInit(),
    );
    expect(orderDefinition.message?.subject).toBe(EventSubjects.orderErasureRequested);
    const issuances = new IssuanceRepository(dataSource, new ErasedScopesRepository());
    const issue = (orderId: string, text: string) =>
      dataSource.transaction((tx) =>
        issuances.findOrCreate(asTransaction(tx), { accountId: '93', orderId, outputFileId: `${orderId}-1`, watermarkText: text, algorithm: 'v3', inputKey: `93/${orderId}/inputs/1/${text}.png`, scrambled: true }),
      );
    await issue('930', 'Jane Doe');
    await issue('931', 'John Doe');
    const erase = (): Promise<void> =>
      deliverDirectly(orderDefinition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000005', accountId: '93', orderId: '930' }, 'erasure-930');

    await erase();
    expect(await textsOf('93')).toEqual(['John Doe']);
    await erase();
    expect(await textsOf('93')).toEqual(['John Doe']);

    // A job of the erased order still running: refused; its sibling's retry still gets its issuance.
    await expect(issue('930', 'Jane Doe')).rejects.toBeInstanceOf(ErasedOrderError);
    await expect(issue('931', 'John Doe')).resolves.toMatchObject({ orderId: '931' });
    expect(await textsOf('93')).toEqual(['John Doe']);
  });

  it('refuses every issuance of an erased account afterwards, and one being made waits for the erasure', async () => {
    const issuances = new IssuanceRepository(dataSource, new ErasedScopesRepository());
    const issuance = { accountId: '94', orderId: '940', outputFileId: '940-1', watermarkText: 'Jane Doe', algorithm: 'v3' as const };
    const erase = (): Promise<void> =>
      deliverDirectly(definition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000006', accountId: '94' }, 'erasure-94');

    // An issuance being made (its transaction open) when the erasure comes: the erasure waits, then deletes it.
    let release!: () => void;
    let issued!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const made = new Promise<void>((resolve) => (issued = resolve));
    const making = dataSource.transaction(async (tx) => {
      await issuances.findOrCreate(asTransaction(tx), issuance);
      issued();
      await held;
    });
    await made;
    const erasing = erase();
    // The erasure waits for the issuance's transaction (on the advisory lock), not the other way round.
    await waitUntil(async () => (await dataSource.query<Array<{ n: number }>>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))[0].n > 0);
    release();
    await making;
    await erasing;
    expect(await textsOf('94')).toEqual([]);

    await expect(dataSource.transaction((tx) => issuances.findOrCreate(asTransaction(tx), { ...issuance, orderId: '941', outputFileId: '941-1' }))).rejects.toBeInstanceOf(ErasedOrderError);
    expect(await textsOf('94')).toEqual([]);
  });
});
