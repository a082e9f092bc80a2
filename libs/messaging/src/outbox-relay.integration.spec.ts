// Real PostgreSQL and NATS JetStream: the outbox relay never keeps a transaction open while the broker answers,
// a batch claimed by a relay that hangs is taken by another once its lease has run out, a row the server can never
// take is parked without holding back the rows behind it, the housekeeping ages out parked and inbox rows, and jobs
// held to their account's share of a queue go out as the share allows.
import { SystemClock } from '@cp/clock';
import { defineEvent, defineJob, message, OutboxMessage, StreamDefinition } from '@cp/contracts';
import { serviceDataSourceOptions, asTransaction } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { IsString } from 'class-validator';
import { connect, JetStreamClient, JetStreamManager, NatsConnection, PubAck } from 'nats';
import { register } from 'prom-client';
import { DataSource, IsNull, Not } from 'typeorm';
import { ensureStreams } from './jetstream-setup';
import { JobAttemptsRepository } from './job-attempts.repository';
import { MessagingRuntime } from './messaging.module';
import { NatsConnectionService } from './nats-connection.service';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { OutboxEventEntity } from './outbox-event.entity';
import { INBOX_RETENTION_MS } from './inbox-records.repository';
import { OUTBOX_PARKED_RETENTION_MS, OUTBOX_SHARE_HOLD_MS, OutboxRelay } from './outbox-relay';
import { OutboxWriter } from './outbox-writer';

class NotePayload {
  @IsString()
  note!: string;
}

class WorkPayload {
  @IsString()
  unit!: string;
}

describe('OutboxRelay (real PostgreSQL and NATS)', () => {
  const schema = uniqueName('it_relay');
  const prefix = uniqueName('itr');
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 600 };
  const event = defineEvent(`${prefix}.note.written`, NotePayload);
  const applicationName = `relay-${prefix}`;
  let dataSource: DataSource;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    dataSource = new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: [], applicationName }));
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    // A throwaway schema for this test: its tables come straight from the entities.
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

  it('holds no transaction while a publish waits, and another relay takes the batch after the lease', async () => {
    const writer = new OutboxWriter(new SystemClock());
    const envelope = await dataSource.transaction((manager) => writer.add(asTransaction(manager), event, { note: 'leased' }));

    // A broker that never acknowledges: the first relay's publish hangs until released.
    let release: () => void = () => undefined;
    const hanging = new Promise<PubAck>((_resolve, reject) => {
      release = () => reject(new Error('broker gave up'));
    });
    let publishing: () => void = () => undefined;
    const published = new Promise<void>((resolve) => (publishing = resolve));
    const stuckJs = {
      publish: () => {
        publishing();
        return hanging;
      },
    } as unknown as JetStreamClient;
    const stuck = new OutboxRelay(dataSource, () => stuckJs, { pollIntervalMs: 100, claimLeaseMs: 1500 });
    const stuckPass = stuck.relayBatch();

    // While it waits: the row is claimed, and no session of this schema's pool sits idle in a transaction. Waited for
    // by the publish itself, not a fixed 300 ms that a slow claim would miss and that used a fifth of the lease the
    // second relay must find still running (1150-1190 ms of it was left then; now about 1450).
    await published;
    const claimed = await dataSource.getRepository(OutboxEventEntity).findOneByOrFail({ id: envelope.eventId });
    expect(claimed.claimedUntil).not.toBeNull();
    const open = await dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'`,
      [applicationName],
    );
    expect(open[0].n).toBe(0);

    // A second relay leaves the claimed row alone until the lease has run out, then publishes it.
    const healthy = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100, claimLeaseMs: 1500 });
    expect(await healthy.relayBatch()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await healthy.relayBatch()).toBe(1);
    const relayed = await dataSource.getRepository(OutboxEventEntity).findOneByOrFail({ id: envelope.eventId });
    expect(relayed.publishedAt).not.toBeNull();
    expect(relayed.claimedUntil).toBeNull();
    const info = await jsm.streams.info(stream.name);
    expect(info.state.messages).toBe(1);

    // The hung relay finally fails: the row stays published.
    release();
    await expect(stuckPass).rejects.toThrow('broker gave up');
    expect((await dataSource.getRepository(OutboxEventEntity).findOneByOrFail({ id: envelope.eventId })).publishedAt).not.toBeNull();
  });

  it('publishes a batch in sequence order and marks it published', async () => {
    const writer = new OutboxWriter(new SystemClock());
    const written = [];
    for (let index = 0; index < 5; index++) {
      written.push(await dataSource.transaction((manager) => writer.add(asTransaction(manager), event, { note: `n${index}` })));
    }
    const relay = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100 });
    expect(await relay.relayBatch()).toBe(5);
    const stored = [];
    for (let seq = 2; seq <= 6; seq++) {
      const message = await jsm.streams.getMessage(stream.name, { seq });
      stored.push(message.header.get('Nats-Msg-Id'));
    }
    expect(stored).toEqual(written.map((envelope) => envelope.eventId));
    expect(await dataSource.getRepository(OutboxEventEntity).countBy({ publishedAt: IsNull() })).toBe(0);
  });

  it('parks a row larger than the server takes, with the reason, and relays the rows behind it in order', async () => {
    const maxPayload = nc.info?.max_payload ?? 0;
    expect(maxPayload).toBeGreaterThan(0);
    const writer = new OutboxWriter(new SystemClock());
    const write = (note: string) => dataSource.transaction((manager) => writer.add(asTransaction(manager), event, { note }));
    const before = await write('before');
    const oversize = await write('x'.repeat(maxPayload));
    const after = [await write('after-1'), await write('after-2')];
    const { messages } = await jsm.streams.info(stream.name).then((info) => info.state);

    // The relay's loop: a pass that fails is retried; the oversize row must not make every pass fail.
    const relay = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100 }, () => nc.info?.max_payload);
    expect(await relay.pass()).toBe(true);

    const rows = await dataSource.getRepository(OutboxEventEntity).findBy([{ id: before.eventId }, { id: oversize.eventId }, ...after.map((envelope) => ({ id: envelope.eventId }))]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const envelope of [before, ...after]) {
      expect(byId.get(envelope.eventId)).toMatchObject({ parkedAt: null, claimedUntil: null });
      expect(byId.get(envelope.eventId)?.publishedAt).not.toBeNull();
    }
    const parked = byId.get(oversize.eventId);
    expect(parked).toMatchObject({ publishedAt: null, claimedUntil: null });
    expect(parked?.parkedAt).not.toBeNull();
    expect(parked?.parkedReason).toMatch(new RegExp(`^\\d+ bytes with headers, above the server's max_payload of ${maxPayload} bytes$`));

    // The others reached the stream in seq order; the parked row is not claimed again.
    const stored = [];
    for (let seq = messages + 1; seq <= messages + 3; seq++) {
      stored.push((await jsm.streams.getMessage(stream.name, { seq })).header.get('Nats-Msg-Id'));
    }
    expect(stored).toEqual([before, ...after].map((envelope) => envelope.eventId));
    expect((await jsm.streams.info(stream.name)).state.messages).toBe(messages + 3);
    expect(await relay.relayBatch()).toBe(0);
  });

  it('a full queue that refuses new messages holds back only its own rows: the events behind them are relayed', async () => {
    // A JOBS-like stream, full: work-queue retention, `discard: new`, 1 KiB, already holding 900 bytes.
    const queue: StreamDefinition = { name: `${prefix}_Q`.toUpperCase(), subjects: [`${prefix}q.>`], retention: 'workqueue', maxAgeSeconds: 600, duplicateWindowSeconds: 600, sizeShare: 1, discard: 'new' };
    await ensureStreams(jsm, [queue], { maxBytes: 1024 });
    await nc.jetstream().publish(`${prefix}q.filler`, new Uint8Array(900));
    const job = defineEvent(`${prefix}q.job.queued`, NotePayload);
    const writer = new OutboxWriter(new SystemClock());
    const write = (contract: typeof event, note: string) => dataSource.transaction((manager) => writer.add(asTransaction(manager), contract, { note }));
    try {
      const jobs = [await write(job, 'job-1'), await write(job, 'job-2'), await write(job, 'job-3')];
      const events = [await write(event, 'event-1'), await write(event, 'event-2')];
      // Batches of 2: the three refused jobs fill the first batches; one pass still reaches the events behind them.
      const relay = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100, batchSize: 2 });
      expect(await relay.pass()).toBe(true);
      const rows = new Map((await dataSource.getRepository(OutboxEventEntity).findBy([...jobs, ...events].map((envelope) => ({ id: envelope.eventId })))).map((row) => [row.id, row]));
      expect(events.map((envelope) => rows.get(envelope.eventId)?.publishedAt instanceof Date)).toEqual([true, true]);
      // The jobs wait, unpublished and not parked, for the queue to have room again.
      expect(jobs.map((envelope) => [rows.get(envelope.eventId)?.publishedAt, rows.get(envelope.eventId)?.parkedAt])).toEqual([
        [null, null],
        [null, null],
        [null, null],
      ]);
      expect((await jsm.streams.info(queue.name)).state.messages).toBe(1);
    } finally {
      await jsm.streams.delete(queue.name);
      await dataSource.getRepository(OutboxEventEntity).delete({ publishedAt: IsNull() });
    }
  });

  it("housekeeping: parked rows go after the PARKED stream's 30 days, inbox rows after their retention; recent ones stay", async () => {
    const day = 24 * 3600_000;
    const writer = new OutboxWriter(new SystemClock());
    const write = (note: string) => dataSource.transaction((manager) => writer.add(asTransaction(manager), event, { note }));
    const [oldParked, recentParked] = [await write('parked long ago'), await write('parked yesterday')];
    const outbox = dataSource.getRepository(OutboxEventEntity);
    await outbox.update({ id: oldParked.eventId }, { parkedAt: new Date(Date.now() - OUTBOX_PARKED_RETENTION_MS - day), parkedReason: 'too large' });
    await outbox.update({ id: recentParked.eventId }, { parkedAt: new Date(Date.now() - day), parkedReason: 'too large' });
    await dataSource.query(`INSERT INTO inbox_record (consumer, event_id, handled_at) VALUES ('c', 'old', $1), ('c', 'recent', $2)`, [
      new Date(Date.now() - INBOX_RETENTION_MS - day),
      new Date(Date.now() - day),
    ]);

    // A relay's first pass runs the housekeeping.
    expect(await new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100 }, () => nc.info?.max_payload).pass()).toBe(true);
    expect(await outbox.existsBy({ id: oldParked.eventId })).toBe(false);
    expect(await outbox.findOneByOrFail({ id: recentParked.eventId })).toMatchObject({ publishedAt: null, parkedReason: 'too large' });
    const inbox = await dataSource.query<Array<{ event_id: string }>>(`SELECT event_id FROM inbox_record ORDER BY event_id`);
    expect(inbox).toEqual([{ event_id: 'recent' }]);
  });

  // Jobs held to their account's share of a queue (`OutboxShare`): at most the limit of one key's unfinished jobs are
  // sent, oldest first, while other keys' jobs and plain events go at once; a result frees one job, the end of its order
  // all of them (the held ones are then never sent), a job whose result never comes stops counting after
  // OUTBOX_SHARE_HOLD_MS, and relays claiming together send no more than the limit.
  describe('per-account shares', () => {
    const job = defineJob(`${prefix}.job.work`, WorkPayload, 60_000, (payload) => payload.unit);
    const note = defineEvent(`${prefix}.note.written`, WorkPayload);
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

    it("a job another relay holds (claimed, or refused by a full stream and waiting to be offered again) counts; a parked one does not", async () => {
      const start = await lastSeq();
      await write([1, 2, 3, 4].map((index) => shared('work:F', 'f1', index, 2)));
      // f1/1 is another relay's (its claim runs), f1/2 parked: one place is left, for f1/3.
      await dataSource.query(`UPDATE "${schema}".outbox_event SET claimed_until = now() + interval '1 minute' WHERE share_unit = 'f1/1'`);
      await dataSource.query(`UPDATE "${schema}".outbox_event SET parked_at = now() WHERE share_unit = 'f1/2'`);
      expect(await relay().pass()).toBe(true);
      expect(await receivedSince(start)).toEqual(['f1/3']);
      // The claim ran out without a publish (that relay died): f1/1 waits again, first, and the place is its.
      const afterFirst = await lastSeq();
      await dataSource.query(`UPDATE "${schema}".outbox_event SET claimed_until = now() - interval '1 second' WHERE share_unit = 'f1/1'`);
      expect(await relay().pass()).toBe(true);
      expect(await receivedSince(afterFirst)).toEqual(['f1/1']);
    });

    it("a large backlog of one account's held jobs does not hold the others' jobs and events", async () => {
      await write(Array.from({ length: 3000 }, (_, index) => shared('work:G', 'g1', index + 1, 2)));
      expect(await relay().pass()).toBe(true);
      const start = await lastSeq();
      await write([shared('work:H', 'h1', 1, 2), message(note, { unit: 'event' })]);
      expect(await relay().pass()).toBe(true);
      expect(await receivedSince(start)).toEqual(['h1/1', 'event']);
      await release('g1');
    });

    it('a job its share let go that a full stream refuses is outbox lag, not held', async () => {
      const runtime = new MessagingRuntime({} as NatsConnectionService, dataSource, new JobAttemptsRepository(dataSource), { drainTimeoutMs: 1000 });
      await runtime.onApplicationBootstrap();
      const figure = async (name: string): Promise<number> => {
        const line = (await register.metrics()).split('\n').find((candidate) => candidate.startsWith(`${name} `));
        return Number(line?.slice(line.lastIndexOf(' ') + 1));
      };
      try {
        await write([1, 2, 3].map((index) => shared('work:M', 'm1', index, 1)));
        expect(await relay().pass()).toBe(true);
        const [held, pending] = [await figure('outbox_jobs_held'), await figure('outbox_events_unpublished')];
        // m1/1's result frees its place; m1/2 goes to the relay, whose JOBS stream is full: refused, it stays claimed
        // between offers (as `publish` leaves it). It waits for the relay now, not for its account.
        await release('m1', ['m1/1']);
        await dataSource.query(
          `UPDATE "${schema}".outbox_event SET claimed_until = now() + interval '5 seconds', created_at = now() - interval '10 minutes' WHERE share_unit = 'm1/2'`,
        );
        expect(await figure('outbox_jobs_held')).toBe(held - 1);
        expect(await figure('outbox_events_unpublished')).toBe(pending + 1);
        expect(await figure('outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(600);
      } finally {
        await runtime.beforeApplicationShutdown();
        await release('m1');
      }
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
});
