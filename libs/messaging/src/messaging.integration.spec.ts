// Real PostgreSQL and NATS JetStream: the outbox survives a crash, consumers are idempotent, failures
// are redelivered with backoff and finally parked where an operator can see them.
import { SystemClock } from '@cp/clock';
import { defineEvent, PARKED_SUBJECT_PREFIX, StreamDefinition, Streams } from '@cp/contracts';
import { serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { IsString } from 'class-validator';
import { AckPolicy, connect, DeliverPolicy, headers as natsHeaders, JetStreamManager, NatsConnection } from 'nats';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { EventConsumer, isTransientInfrastructureError } from './event-consumer';
import { ensureStreams } from './jetstream-setup';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRelay } from './outbox-relay';
import { OutboxWriter } from './outbox-writer';

class NotePayload {
  @IsString()
  note!: string;
}

const ROOT = path.resolve(__dirname, '../../..');
const encoder = new TextEncoder();

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error('condition not reached in time');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('messaging backbone (real PostgreSQL and NATS)', () => {
  const schema = uniqueName('it_messaging');
  const prefix = uniqueName('it');
  const stream: StreamDefinition = {
    name: prefix.toUpperCase(),
    subjects: [`${prefix}.>`],
    retention: 'limits',
    maxAgeSeconds: 600,
    duplicateWindowSeconds: 600,
  };
  let dataSource: DataSource;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const consumers: Array<EventConsumer<NotePayload>> = [];

  beforeAll(async () => {
    dataSource = new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: [], applicationName: 'it' }),
    );
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    // A throwaway schema for this test: its tables come straight from the entities.
    await dataSource.synchronize();
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [stream, Streams.parked]);
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
  });

  afterAll(async () => {
    await jsm.streams.delete(stream.name);
    await nc.drain();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  function startConsumer(
    durable: string,
    subject: string,
    handle: (data: NotePayload, eventId: string, deliveryCount: number) => Promise<void>,
    options: { maxAttempts?: number; backoffMs?: number[] } = {},
  ): Promise<void> {
    const consumer = new EventConsumer<NotePayload>(
      {
        durable,
        stream: stream.name,
        filterSubject: subject,
        payload: NotePayload,
        ...options,
        handle: (data, context) => handle(data, context.eventId, context.deliveryCount),
      },
      dataSource,
      nc.jetstream(),
      jsm,
    );
    consumers.push(consumer);
    return consumer.start();
  }

  it('delivers an event committed by a process killed before it could publish', async () => {
    const subject = `${prefix}.crash.happened`;
    const eventId = randomUUID();
    const child = spawnSync(
      process.execPath,
      ['-r', path.join(ROOT, 'tools/register.js'), path.join(__dirname, '__fixtures__/commit-outbox-and-die.ts'), testInfra.databaseUrl, schema, subject, eventId],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toContain('committed');

    const unpublished = await dataSource.getRepository(OutboxEventEntity).findBy({ subject });
    expect(unpublished.map((row) => [row.id, row.publishedAt])).toEqual([[eventId, null]]);

    const received: string[] = [];
    await startConsumer(`${prefix}-crash`, subject, async (_data, receivedId) => {
      received.push(receivedId);
    });
    const relay = new OutboxRelay(dataSource, () => nc.jetstream(), { pollIntervalMs: 100 });
    await relay.pass();
    await waitUntil(() => received.length === 1);
    expect(received).toEqual([eventId]);
    const after = await dataSource.getRepository(OutboxEventEntity).findOneByOrFail({ id: eventId });
    expect(after.publishedAt).not.toBeNull();
  });

  it('publishes a re-relayed event once (Nats-Msg-Id de-duplication)', async () => {
    const subject = `${prefix}.dedupe.checked`;
    const js = nc.jetstream();
    const eventId = randomUUID();
    const first = await js.publish(subject, encoder.encode('{}'), { msgID: eventId });
    const second = await js.publish(subject, encoder.encode('{}'), { msgID: eventId });
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);
  });

  it('handles a message delivered twice only once (inbox)', async () => {
    const subject = `${prefix}.twice.delivered`;
    const writer = new OutboxWriter(new SystemClock());
    const envelope = await dataSource.transaction((manager) => writer.add(manager, defineEvent(subject, NotePayload), { note: 'once' }));
    const js = nc.jetstream();
    // Two copies with different message ids get past JetStream de-duplication, as after the window.
    for (const copy of ['a', 'b']) {
      const headers = natsHeaders();
      await js.publish(subject, encoder.encode(JSON.stringify(envelope)), { msgID: `${envelope.eventId}-${copy}`, headers });
    }
    let effects = 0;
    let deliveries = 0;
    await startConsumer(`${prefix}-twice`, subject, async () => {
      deliveries += 1;
    });
    const consumer = new EventConsumer<NotePayload>(
      {
        durable: `${prefix}-twice-effects`,
        stream: stream.name,
        filterSubject: subject,
        payload: NotePayload,
        handle: async (_data, context) => {
          await context.transaction(async () => {
            effects += 1;
          });
        },
      },
      dataSource,
      js,
      jsm,
    );
    consumers.push(consumer);
    await consumer.start();
    await waitUntil(async () => {
      const info = await jsm.consumers.info(stream.name, `${prefix}-twice-effects`);
      return info.num_ack_pending === 0 && info.num_pending === 0 && info.delivered.consumer_seq === 2;
    });
    expect(deliveries).toBe(2);
    expect(effects).toBe(1);
  });

  it('a database outage longer than its attempts parks nothing: the message is retried until the handler succeeds', async () => {
    const subject = `${prefix}.outage`;
    const writer = new OutboxWriter(new SystemClock());
    const envelope = await dataSource.transaction((manager) => writer.add(manager, defineEvent(subject, NotePayload), { note: 'during an outage' }));
    await nc.jetstream().publish(subject, encoder.encode(JSON.stringify(envelope)), { msgID: envelope.eventId });

    const attempts: number[] = [];
    let handled = false;
    await startConsumer(
      `${prefix}-outage`,
      subject,
      async (_data, _eventId, deliveryCount) => {
        attempts.push(deliveryCount);
        if (attempts.length <= 3) {
          // What pg throws while PostgreSQL restarts after a crash.
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
        handled = true;
      },
      { maxAttempts: 2, backoffMs: [300, 900] },
    );
    await waitUntil(() => handled, 20_000);
    expect(attempts).toEqual([1, 2, 3, 4]);
  });

  it('tells failures of the infrastructure from failures of a message', () => {
    expect(isTransientInfrastructureError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientInfrastructureError(Object.assign(new Error('terminating connection due to unexpected postmaster exit'), { code: '57P01' }))).toBe(true);
    expect(isTransientInfrastructureError(new Error('query failed', { cause: new Error('Connection terminated unexpectedly') }))).toBe(true);
    expect(isTransientInfrastructureError(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
    expect(isTransientInfrastructureError(new Error('handler bug'))).toBe(false);
    expect(isTransientInfrastructureError('not an error')).toBe(false);
  });

  it('redelivers a failing message with backoff, then parks it where it stays visible', async () => {
    const subject = `${prefix}.always.failing`;
    const writer = new OutboxWriter(new SystemClock());
    const envelope = await dataSource.transaction((manager) => writer.add(manager, defineEvent(subject, NotePayload), { note: 'poison' }));
    await nc.jetstream().publish(subject, encoder.encode(JSON.stringify(envelope)), { msgID: envelope.eventId });

    const attempts: Array<{ at: number; deliveryCount: number }> = [];
    const durable = `${prefix}-failing`;
    await startConsumer(
      durable,
      subject,
      async (_data, _eventId, deliveryCount) => {
        attempts.push({ at: Date.now(), deliveryCount });
        throw new Error('handler bug');
      },
      { maxAttempts: 3, backoffMs: [300, 900] },
    );
    await waitUntil(() => attempts.length === 3);

    expect(attempts.map((attempt) => attempt.deliveryCount)).toEqual([1, 2, 3]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(250);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(800);

    const parkedSubject = `${PARKED_SUBJECT_PREFIX}.${durable}`;
    const reader = `${durable}-reader`;
    await jsm.consumers.add(Streams.parked.name, {
      durable_name: reader,
      filter_subject: parkedSubject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    const parked = await (await nc.jetstream().consumers.get(Streams.parked.name, reader)).next({ expires: 5000 });
    expect(parked).not.toBeNull();
    expect(parked?.headers?.get('Parked-Subject')).toBe(subject);
    expect(parked?.headers?.get('Parked-Reason')).toBe('handler bug');
    expect(JSON.parse(new TextDecoder().decode(parked?.data))).toEqual(envelope);
    parked?.ack();
    await jsm.consumers.delete(Streams.parked.name, reader);

    // Parked, not retried forever: no fourth attempt arrives.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(attempts).toHaveLength(3);
  });

  it('parks a message whose payload can never be valid, without calling the handler', async () => {
    const subject = `${prefix}.invalid.payload`;
    await nc.jetstream().publish(subject, encoder.encode(JSON.stringify({ eventId: randomUUID(), subject, occurredAt: '', data: { note: 42 } })));
    let calls = 0;
    const durable = `${prefix}-invalid`;
    await startConsumer(durable, subject, async () => {
      calls += 1;
    });
    await waitUntil(async () => {
      const info = await jsm.streams.info(Streams.parked.name, { subjects_filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
      return (info.state.subjects?.[`${PARKED_SUBJECT_PREFIX}.${durable}`] ?? 0) === 1;
    });
    expect(calls).toBe(0);
  });
});
