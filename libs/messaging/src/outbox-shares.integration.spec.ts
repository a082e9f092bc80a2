// Real PostgreSQL and NATS JetStream: jobs held to their account's share of a queue (`OutboxShare`). The relay sends at
// most the limit of one key's unfinished jobs, oldest first, while other keys' jobs and plain events go at once; a
// result frees one job, the end of its order frees all of them (the held ones are then never sent), a job whose result
// never comes stops counting after OUTBOX_SHARE_HOLD_MS, and two relays claiming together still send no more than the limit.
import { SystemClock } from '@cp/clock';
import { defineEvent, defineJob, message, OutboxMessage, StreamDefinition } from '@cp/contracts';
import { asTransaction, serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { IsString } from 'class-validator';
import { connect, JetStreamManager, NatsConnection } from 'nats';
import { DataSource, IsNull, Not } from 'typeorm';
import { ensureStreams } from './jetstream-setup';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { OutboxEventEntity } from './outbox-event.entity';
import { OUTBOX_SHARE_HOLD_MS, OutboxRelay } from './outbox-relay';
import { OutboxWriter } from './outbox-writer';

class WorkPayload {
  @IsString()
  unit!: string;
}

describe('OutboxRelay with per-account shares (real PostgreSQL and NATS)', () => {
  const schema = uniqueName('it_share');
  const prefix = uniqueName('its');
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 600 };
  const job = defineJob(`${prefix}.job.work`, WorkPayload, 60_000, (payload) => payload.unit);
  const note = defineEvent(`${prefix}.note.written`, WorkPayload);
  let dataSource: DataSource;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const writer = new OutboxWriter(new SystemClock());

  /** A job of `order` (unit `order/index`) held to `key`'s share of `limit`. */
  const shared = (key: string, order: string, index: number, limit: number): OutboxMessage =>
    ({ ...message(job, { unit: `${order}/${index}` }), share: { key, order, unit: `${order}/${index}`, limit } }) satisfies OutboxMessage;
  const write = (messages: OutboxMessage[]): Promise<void> => dataSource.transaction((manager) => writer.addAll(asTransaction(manager), messages));
  const release = (order: string, units?: string[]): Promise<void> => dataSource.transaction((manager) => writer.releaseShares(asTransaction(manager), order, units));
  const relay = (): OutboxRelay => new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100 });

  /** The units (or the note's text) of what the stream received since `after`, in order. */
  const receivedSince = async (after: number): Promise<string[]> => {
    const last = (await jsm.streams.info(stream.name)).state.last_seq;
    const units: string[] = [];
    for (let seq = after + 1; seq <= last; seq++) {
      const stored = await jsm.streams.getMessage(stream.name, { seq });
      units.push((stored.json<{ data: WorkPayload }>()).data.unit);
    }
    return units;
  };
  const lastSeq = async (): Promise<number> => (await jsm.streams.info(stream.name)).state.last_seq;

  beforeAll(async () => {
    dataSource = new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: [], applicationName: 'it-share' }));
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    // A throwaway schema for this test: its tables and partial indexes come straight from the entities.
    await dataSource.synchronize();
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [stream]);
  });

  afterAll(async () => {
    await jsm.streams.delete(stream.name);
    await nc.drain();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it("sends at most the limit of one account's jobs; other accounts and events are not held; results and the order's end free them", async () => {
    const start = await lastSeq();
    // Account A's order of five jobs, then account B's one job, then an event: B and the event must not wait for A.
    await write([1, 2, 3, 4, 5].map((index) => shared('work:A', 'a1', index, 2)));
    await write([shared('work:B', 'b1', 1, 2), message(note, { unit: 'event' })]);
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(start)).toEqual(['a1/1', 'a1/2', 'b1/1', 'event']);

    // Nothing more while A's two are unfinished, however often the relay looks.
    const afterFirst = await lastSeq();
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterFirst)).toEqual([]);

    // A result frees its job: the next of A's goes, oldest first. Freeing a job twice frees nothing more.
    await release('a1', ['a1/1']);
    await release('a1', ['a1/1']);
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterFirst)).toEqual(['a1/3']);

    // A's order ends: its sent jobs stop counting and the two still held are never sent.
    const afterRelease = await lastSeq();
    await release('a1');
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterRelease)).toEqual([]);
    const cancelled = await dataSource.getRepository(OutboxEventEntity).find({ where: { shareOrder: 'a1', publishedAt: IsNull() }, order: { seq: 'ASC' } });
    expect(cancelled.map((row) => [row.shareUnit, row.shareReleasedAt !== null])).toEqual([
      ['a1/4', true],
      ['a1/5', true],
    ]);

    // A's next order gets the whole share at once.
    await write([1, 2, 3].map((index) => shared('work:A', 'a2', index, 2)));
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterRelease)).toEqual(['a2/1', 'a2/2']);
  });

  it('a sent job whose result never comes stops counting after OUTBOX_SHARE_HOLD_MS', async () => {
    const start = await lastSeq();
    await write([1, 2].map((index) => shared('work:C', 'c1', index, 1)));
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(start)).toEqual(['c1/1']);
    const afterFirst = await lastSeq();
    // Sent just inside the hold: still counted.
    await dataSource.query(`UPDATE "${schema}".outbox_event SET published_at = now() - make_interval(secs => $1::double precision / 1000 - 60) WHERE share_unit = 'c1/1'`, [OUTBOX_SHARE_HOLD_MS]);
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterFirst)).toEqual([]);
    // Sent longer ago than the hold: its place is free.
    await dataSource.query(`UPDATE "${schema}".outbox_event SET published_at = now() - make_interval(secs => $1::double precision / 1000 + 60) WHERE share_unit = 'c1/1'`, [OUTBOX_SHARE_HOLD_MS]);
    expect(await relay().pass()).toBe(true);
    expect(await receivedSince(afterFirst)).toEqual(['c1/2']);
  });

  it('two relays claiming at the same time send no more than the limit between them', async () => {
    const start = await lastSeq();
    await write(Array.from({ length: 10 }, (_, index) => shared('work:D', 'd1', index + 1, 3)));
    const relays = [relay(), relay(), relay()];
    const settled = await Promise.all(relays.map((each) => each.relayBatch()));
    expect(settled.reduce((sum, count) => sum + count, 0)).toBe(3);
    expect(await receivedSince(start)).toEqual(['d1/1', 'd1/2', 'd1/3']);
  });

  it('housekeeping deletes the never-sent jobs of an ended order with the published rows, not the held ones', async () => {
    await write([1, 2].map((index) => shared('work:E', 'e1', index, 1)));
    await write([1, 2].map((index) => shared('work:E', 'e2', index, 1)));
    expect(await relay().pass()).toBe(true);
    await release('e1');
    await dataSource.query(`UPDATE "${schema}".outbox_event SET share_released_at = now() - interval '2 hours' WHERE share_order = 'e1'`);
    const sweeper = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100, retainPublishedMs: 3600_000 });
    expect(await sweeper.pass()).toBe(true);
    const left = await dataSource.getRepository(OutboxEventEntity).find({ where: { shareKey: 'work:E' }, order: { seq: 'ASC' } });
    // e1/1 was sent (kept until its publish ages out), e1/2 never was (deleted); e2's jobs wait on, one of them sent now.
    expect(left.map((row) => [row.shareUnit, row.publishedAt !== null])).toEqual([
      ['e1/1', true],
      ['e2/1', true],
      ['e2/2', false],
    ]);
    expect(await dataSource.getRepository(OutboxEventEntity).countBy({ shareKey: 'work:E', shareReleasedAt: Not(IsNull()), publishedAt: IsNull() })).toBe(0);
  });
});
