// Relay on commit (issue 32) against real PostgreSQL and NATS JetStream: the safety-net poll is set to ten
// minutes, so an event that reaches the stream within the test was relayed by a wake, not by the poll.
import { SystemClock } from '@cp/clock';
import { defineEvent, StreamDefinition } from '@cp/contracts';
import { migrateServiceDatabase, serviceDataSourceOptions, asTransaction } from '@cp/database';
import { ensureStreams, MESSAGING_ENTITIES, MESSAGING_MIGRATIONS, OutboxCommitSignal, OutboxRelay, OutboxWriter } from '@cp/messaging';
import { testInfra, uniqueName, waitUntil } from '@cp/testing';
import { IsString } from 'class-validator';
import { connect, JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { OutboxRelayLoop } from './outbox-relay.loop';

class NotePayload {
  @IsString()
  note!: string;
}

const NO_POLL_MS = 600_000;

describe('OutboxRelayLoop: relay on commit (real PostgreSQL and NATS)', () => {
  const schema = uniqueName('it_relay_commit');
  const prefix = uniqueName('itrc');
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 600 };
  const event = defineEvent(`${prefix}.note.written`, NotePayload);
  const applicationName = `relay-commit-${prefix}`;
  let replicaA: DataSource;
  let replicaB: DataSource;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let signal: OutboxCommitSignal;
  let loop: OutboxRelayLoop;

  const open = (name: string): Promise<DataSource> =>
    new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: MESSAGING_MIGRATIONS, applicationName: name })).initialize();
  const streamMessages = async (): Promise<number> => (await jsm.streams.info(stream.name)).state.messages;
  const published = async (dataSource: DataSource, eventId: string): Promise<boolean> =>
    (await dataSource.query<Array<{ done: boolean }>>(`SELECT published_at IS NOT NULL AS done FROM outbox_event WHERE id = $1`, [eventId]))[0]?.done === true;

  beforeAll(async () => {
    replicaA = await open(applicationName);
    await migrateServiceDatabase(replicaA, schema);
    replicaB = await open(`${applicationName}-b`);
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [stream]);
    signal = OutboxCommitSignal.on(replicaA);
    loop = new OutboxRelayLoop(new OutboxRelay(replicaA, () => nc.jetstream(), { pollIntervalMs: NO_POLL_MS }), signal);
    await loop.onApplicationBootstrap();
  });

  afterAll(async () => {
    await loop.beforeApplicationShutdown();
    await jsm.streams.delete(stream.name);
    await nc.drain();
    await replicaB.destroy();
    await replicaA.query(`DROP SCHEMA "${schema}" CASCADE`);
    await replicaA.destroy();
  });

  it('signals this process after the commit of outbox rows, never before it nor on a rollback', async () => {
    const writer = new OutboxWriter(new SystemClock(), signal);
    let signals = 0;
    let nestedId = '';
    // Asked at the moment of the signal, from another session: the signal must follow the COMMIT.
    let visibleAtSignal: Promise<boolean> | undefined;
    const unsubscribe = signal.subscribe(() => {
      signals += 1;
      visibleAtSignal ??= replicaB
        .query<Array<{ id: string }>>(`SELECT id FROM outbox_event WHERE id = $1`, [nestedId])
        .then((rows) => rows.length === 1);
    });
    try {
      await replicaA
        .transaction(async (manager) => {
          await writer.add(asTransaction(manager), event, { note: 'rolled back' });
          throw new Error('undo');
        })
        .catch(() => undefined);
      expect(signals).toBe(0);
      const envelope = await replicaA.transaction(async (manager) => {
        // A nested transaction (a savepoint) ends first: no signal yet, its rows are not visible yet.
        await manager.transaction(async (inner) => {
          nestedId = (await writer.add(asTransaction(inner), event, { note: 'nested' })).eventId;
        });
        expect(signals).toBe(0);
        return writer.add(asTransaction(manager), event, { note: 'committed' });
      });
      expect(signals).toBe(1);
      expect(await visibleAtSignal).toBe(true);
      // The ten-minute poll cannot have done it: the commit woke the relay.
      await waitUntil(() => published(replicaA, envelope.eventId), 20_000);
      expect(await published(replicaA, nestedId)).toBe(true);
    } finally {
      unsubscribe();
    }
  });

  it('tries a failed pass again soon, without a commit or the poll: a broker that failed twice gets the event on the third pass', async () => {
    // A relay of its own whose broker refuses the first two publishes (a stream electing its leader answers no
    // one); the poll is ten minutes and nothing else commits, so only the loop's retry can publish the row.
    // Replica A's relay would publish the row on its NOTIFY; it is stopped for this test.
    await loop.beforeApplicationShutdown();
    const writer = new OutboxWriter(new SystemClock());
    const envelope = await replicaB.transaction((manager) => writer.add(asTransaction(manager), event, { note: 'during an election' }));
    let refusals = 2;
    const refusing = (): JetStreamClient => {
      const js = nc.jetstream();
      if (refusals > 0) {
        refusals -= 1;
        return { ...js, publish: () => Promise.reject(new Error('no responders')) };
      }
      return js;
    };
    const retrying = new OutboxRelayLoop(new OutboxRelay(replicaB, refusing, { pollIntervalMs: NO_POLL_MS }), OutboxCommitSignal.on(replicaB));
    try {
      await retrying.onApplicationBootstrap();
      await waitUntil(() => published(replicaB, envelope.eventId), 20_000);
      expect(refusals).toBe(0);
    } finally {
      await retrying.beforeApplicationShutdown();
      loop = new OutboxRelayLoop(new OutboxRelay(replicaA, () => nc.jetstream(), { pollIntervalMs: NO_POLL_MS }), signal);
      await loop.onApplicationBootstrap();
    }
  });

  it("relays another replica's commit through LISTEN/NOTIFY, and again after the listening connection was killed", async () => {
    // Replica B has no relay and no signal: only the table's NOTIFY trigger can tell replica A.
    const writerB = new OutboxWriter(new SystemClock());
    const before = await streamMessages();
    const first = await replicaB.transaction((manager) => writerB.add(asTransaction(manager), event, { note: 'from b' }));
    await waitUntil(() => published(replicaB, first.eventId), 20_000);
    expect(await streamMessages()).toBe(before + 1);

    // The listening connection dies (a PostgreSQL restart, a network cut): it connects again by itself.
    const killed = await replicaB.query<Array<{ pid: number }>>(
      `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name = $1`,
      [`${applicationName}-outbox-listener`],
    );
    expect(killed).toHaveLength(1);
    await waitUntil(
      async () =>
        (
          await replicaB.query<Array<{ n: number }>>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
            [`${applicationName}-outbox-listener`],
          )
        )[0].n === 1,
      20_000,
    );
    const second = await replicaB.transaction((manager) => writerB.add(asTransaction(manager), event, { note: 'after reconnect' }));
    await waitUntil(() => published(replicaB, second.eventId), 20_000);
    expect(await streamMessages()).toBe(before + 2);
  });
});
