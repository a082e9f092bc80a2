// The shared outbox/inbox migration against real PostgreSQL: fresh schemas get the tables, and schemas
// whose first migration already created them (every service before it was shared) upgrade untouched.
import { migrateServiceDatabase, serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { MESSAGING_MIGRATIONS } from './messaging-migrations';
import { OutboxEventEntity } from './outbox-event.entity';

describe('MESSAGING_MIGRATIONS (real PostgreSQL)', () => {
  const opened: Array<{ dataSource: DataSource; schema: string }> = [];

  const open = async (migrations: Array<new () => object>): Promise<{ dataSource: DataSource; schema: string }> => {
    const schema = uniqueName('it_msg_mig');
    const dataSource = await new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations, applicationName: 'it' }),
    ).initialize();
    opened.push({ dataSource, schema });
    return { dataSource, schema };
  };

  afterAll(async () => {
    for (const { dataSource, schema } of opened) {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
  });

  it('creates the outbox and inbox tables, and the inbox index, in fresh schemas of services migrating at once', async () => {
    // Every service migrates at start, several at the same time (one advisory lock orders them): no migration may
    // wait for the others' transactions (CREATE INDEX CONCURRENTLY would wait for the migrators queued on the lock).
    const services = await Promise.all([open(MESSAGING_MIGRATIONS), open(MESSAGING_MIGRATIONS), open(MESSAGING_MIGRATIONS)]);
    await Promise.all(services.map(({ dataSource, schema }) => migrateServiceDatabase(dataSource, schema)));
    for (const { dataSource, schema } of services) {
      await dataSource.getRepository(OutboxEventEntity).insert({ id: '5f1d7b1e-5b0a-4c4e-9c55-1d1f0c3a9b10', subject: 'evt.test.a.b', envelope: {} });
      expect(await dataSource.getRepository(OutboxEventEntity).count()).toBe(1);
      await dataSource.query(`INSERT INTO inbox_record (consumer, event_id) VALUES ('c', 'e')`);
      const indexes = await dataSource.query<Array<{ indexname: string }>>(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'inbox_record'`, [schema]);
      expect(indexes.map((row) => row.indexname)).toContain('idx_inbox_record_handled_at');
    }
  });

  it('upgrades a schema whose old first migration already created them (data kept)', async () => {
    const { dataSource, schema } = await open([]);
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // What every service's Init migration created before the tables were shared.
    await dataSource.query(`CREATE TABLE "${schema}"."outbox_event" ("id" uuid NOT NULL, "seq" BIGSERIAL NOT NULL, "subject" text NOT NULL,
      "envelope" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "published_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_cc0c9e40998e45ecfc5e313429d" PRIMARY KEY ("id"))`);
    await dataSource.query(`CREATE INDEX "idx_outbox_event_unpublished" ON "${schema}"."outbox_event" ("seq") WHERE published_at IS NULL`);
    await dataSource.query(`CREATE TABLE "${schema}"."inbox_record" ("consumer" text NOT NULL, "event_id" text NOT NULL,
      "handled_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cee1297061a0822c5f955f5ceb5" PRIMARY KEY ("consumer", "event_id"))`);
    await dataSource.query(`INSERT INTO "${schema}"."inbox_record" (consumer, event_id) VALUES ('old', 'kept')`);
    const upgraded = new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: MESSAGING_MIGRATIONS, applicationName: 'it' }),
    );
    await upgraded.initialize();
    try {
      await migrateServiceDatabase(upgraded, schema);
      const rows = await upgraded.query<Array<{ event_id: string }>>(`SELECT event_id FROM inbox_record`);
      expect(rows).toEqual([{ event_id: 'kept' }]);
      const ran = await upgraded.query<Array<{ name: string }>>(`SELECT name FROM migrations`);
      expect(ran.map((row) => row.name)).toEqual([
        'MessagingTables1795310000000',
        'OutboxClaimLease1795645465695',
        'OutboxNotifyTrigger1795960000000',
        'JobAttempts1796100000000',
        'OutboxTraceparent1796200000000',
        'OutboxParked1797200000000',
        'InboxHandledAt1797200000001',
        'OutboxShares1798000000000',
      ]);
      // The entities (which the services' migration generator compares against) match the migrated schema.
      const pending = await upgraded.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await upgraded.destroy();
    }
  });
});
