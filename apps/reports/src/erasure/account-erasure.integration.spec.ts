// An erased account's report rows against real PostgreSQL (the reports service's migrations), through the
// consumer's handler: its reports go, another account's stay, a redelivery deletes nothing more.
import { AccountErasureRequestedEvent, EventSubjects } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { ConsumerDefinition, deliverDirectly, MESSAGING_ENTITIES, registeredConsumer } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { REPORTS_ENTITIES } from '../database/entities';
import { REPORTS_MIGRATIONS } from '../database/migrations';
import { ReportEntity } from '../reports/report.entity';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountReportsUseCase } from './erase-account-reports.use-case';

describe("an erased account's reports are deleted (real PostgreSQL)", () => {
  const schema = uniqueName('it_reports_erasure');
  let dataSource: DataSource;
  let definition: ConsumerDefinition<AccountErasureRequestedEvent>;

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...REPORTS_ENTITIES, ...MESSAGING_ENTITIES], migrations: REPORTS_MIGRATIONS, applicationName: 'it-reports-erasure' });
    definition = registeredConsumer<AccountErasureRequestedEvent>((messaging) =>
      new AccountErasureConsumer(messaging, new EraseAccountReportsUseCase(new AccountErasureRepository())).onModuleInit(),
    );
    expect(definition.message?.subject).toBe(EventSubjects.accountErasureRequested);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const reportsOf = async (accountId: string): Promise<number> => dataSource.getRepository(ReportEntity).countBy({ accountId });

  it("deletes every report row of the account and no other account's", async () => {
    const now = new Date('2026-11-30T00:00:00.000Z');
    const report = (orderId: string, accountId: string) => ({
      orderId,
      locale: 'en-US' as const,
      accountId,
      mode: 'live' as const,
      reportType: 'watermarkDetection' as const,
      status: 'completed' as const,
      attempt: 1,
      objectBucket: 'cp-reports',
      objectKey: `${accountId}/${orderId}/reports/en-US.pdf`,
      requestedAt: now,
      statusChangedAt: now,
      completedAt: now,
    });
    await dataSource.getRepository(ReportEntity).save([report('700', '61'), report('701', '61'), report('702', '62')]);
    const erase = (): Promise<void> =>
      deliverDirectly(definition, new TransactionRepository(dataSource), { erasureId: '00000000-0000-4000-8000-000000000005', accountId: '61' }, 'erasure-61');

    await erase();
    expect(await reportsOf('61')).toBe(0);
    expect(await reportsOf('62')).toBe(1);
    await erase();
    expect(await reportsOf('62')).toBe(1);
  });
});
