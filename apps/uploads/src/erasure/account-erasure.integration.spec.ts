// An erased account's upload slots against real PostgreSQL (the uploads service's migrations), through the
// consumer's handler: its slots (file names, source URLs) go, another account's stay, a redelivery deletes nothing.
import { ManualClock } from '@cp/clock';
import { AccountErasureRequestedEvent, EventSubjects } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, MESSAGING_ENTITIES, OutboxWriter, registeredConsumer } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { UPLOADS_ENTITIES } from '../database/entities';
import { UPLOADS_MIGRATIONS } from '../database/migrations';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountUploadsUseCase } from './erase-account-uploads.use-case';

describe("an erased account's upload slots are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_uploads_erasure');
  let dataSource: DataSource;
  let definition: ConsumerDefinition<AccountErasureRequestedEvent>;

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...UPLOADS_ENTITIES, ...MESSAGING_ENTITIES], migrations: UPLOADS_MIGRATIONS, applicationName: 'it-uploads-erasure' });
    definition = registeredConsumer<AccountErasureRequestedEvent>((messaging) =>
      new AccountErasureConsumer(messaging, new EraseAccountUploadsUseCase(new AccountErasureRepository())).onModuleInit(),
    );
    expect(definition.message?.subject).toBe(EventSubjects.accountErasureRequested);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const slotsOf = async (accountId: string): Promise<number> =>
    (await dataSource.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM upload_slot WHERE account_id = $1', [accountId]))[0].n;

  it("deletes every slot of the account, of every order, and no other account's", async () => {
    const slots = new UploadSlotsRepository(dataSource, new OutboxWriter(new ManualClock()));
    const slot = (fileId: string, accountId: string, orderId: string, name: string) => ({
      fileId,
      orderId,
      accountId,
      mode: 'live' as const,
      orderType: 'watermarkEmbed' as const,
      bucket: 'cp-inputs',
      objectKey: `${accountId}/${orderId}/inputs/${fileId}/${name}`,
      sourceUrl: 'https://files.example.com/a.png?X-Amz-Signature=abc',
    });
    await slots.insertNew(null, [slot('1', '81', '10', 'Jane Doe.png'), slot('2', '81', '11', 'Jane Doe 2.png'), slot('3', '82', '12', 'John Roe.png')]);
    const erase = (): Promise<void> =>
      deliverDirectly(definition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000003', accountId: '81' }, 'erasure-81');

    await erase();
    expect(await slotsOf('81')).toBe(0);
    expect(await slotsOf('82')).toBe(1);
    await erase();
    expect(await slotsOf('82')).toBe(1);
  });
});
