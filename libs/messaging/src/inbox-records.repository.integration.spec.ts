// Real PostgreSQL, on a schema built by the shared messaging migrations: the inbox keeps what an event could still
// be delivered for, and loses the rest in bounded batches.
import { Streams } from '@cp/contracts';
import { migrateServiceDatabase, serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { INBOX_RETENTION_MS, InboxRecordsRepository } from './inbox-records.repository';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { MESSAGING_MIGRATIONS } from './messaging-migrations';

const DAY_MS = 24 * 3600_000;

describe('InboxRecordsRepository.prune (real PostgreSQL)', () => {
  const schema = uniqueName('it_inbox');
  let dataSource: DataSource;
  const now = Date.parse('2026-11-01T00:00:00Z');

  beforeAll(async () => {
    dataSource = await new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: MESSAGING_MIGRATIONS, applicationName: 'it-inbox' }),
    ).initialize();
    await migrateServiceDatabase(dataSource, schema);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  beforeEach(async () => {
    await dataSource.query('DELETE FROM inbox_record');
  });

  const insert = async (consumer: string, eventId: string, handledAt: number): Promise<void> => {
    await dataSource.query('INSERT INTO inbox_record (consumer, event_id, handled_at) VALUES ($1, $2, $3)', [consumer, eventId, new Date(handledAt)]);
  };

  const remaining = async (): Promise<string[]> =>
    (await dataSource.query<Array<{ event_id: string }>>('SELECT event_id FROM inbox_record ORDER BY event_id')).map((row) => row.event_id);

  it('outlives every replay: the longest stream a consumer reads, then PARKED, then that stream again, and a margin', () => {
    expect(INBOX_RETENTION_MS).toBe((2 * Streams.events.maxAgeSeconds + Streams.parked.maxAgeSeconds) * 1000 + DAY_MS);
    expect(INBOX_RETENTION_MS).toBeGreaterThan(Streams.parked.maxAgeSeconds * 1000);
  });

  it('deletes the rows handled before the retention and keeps the recent ones, of every consumer', async () => {
    await insert('orders-results', 'old-1', now - INBOX_RETENTION_MS - 1000);
    await insert('webhooks-events', 'old-2', now - 400 * DAY_MS);
    await insert('orders-results', 'kept-edge', now - INBOX_RETENTION_MS + 1000);
    await insert('webhooks-events', 'kept-parked-window', now - 31 * DAY_MS);
    await insert('orders-results', 'kept-today', now - 1000);
    expect(await new InboxRecordsRepository(dataSource).prune(now)).toBe(2);
    expect(await remaining()).toEqual(['kept-edge', 'kept-parked-window', 'kept-today']);
  });

  it('works in batches: several to clear a backlog, never more than its limit per call', async () => {
    for (let index = 0; index < 7; index++) {
      await insert('c', `old-${index}`, now - INBOX_RETENTION_MS - (index + 1) * DAY_MS);
    }
    await insert('c', 'recent', now);
    // Two batches at most: four rows go, the oldest first; the rest at the next call.
    expect(await new InboxRecordsRepository(dataSource, { batchSize: 2, maxBatches: 2 }).prune(now)).toBe(4);
    expect(await remaining()).toEqual(['old-0', 'old-1', 'old-2', 'recent']);
    expect(await new InboxRecordsRepository(dataSource, { batchSize: 2, maxBatches: 20 }).prune(now)).toBe(3);
    expect(await remaining()).toEqual(['recent']);
  });

  it('has the index on handled_at that finds them', async () => {
    const [index] = await dataSource.query<Array<{ indexdef: string }>>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'idx_inbox_record_handled_at'`,
      [schema],
    );
    expect(index?.indexdef).toContain('(handled_at)');
  });
});
