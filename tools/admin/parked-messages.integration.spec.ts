// `npm run admin -- parked list|replay|discard` against the real NATS JetStream (and PostgreSQL for the
// consumer's inbox): a consumer parks a message, the command lists it with its reason, replays it to the
// consumer that parked it (and only to that one), or discards it.
import { defineEvent, PARKED_SUBJECT_PREFIX, StreamDefinition, Streams } from '@cp/contracts';
import { serviceDataSourceOptions, asTransaction } from '@cp/database';
import { EventConsumer, ensureStreams, MESSAGING_ENTITIES, OutboxWriter, ParkedMessage, ReplayResult } from '@cp/messaging';
import { SystemClock } from '@cp/clock';
import { testInfra, uniqueName, waitUntil } from '@cp/testing';
import { IsString } from 'class-validator';
import { connect, JetStreamManager, NatsConnection } from 'nats';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';

class NotePayload {
  @IsString()
  note!: string;
}

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

async function admin<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(__dirname, 'admin.ts'), 'parked', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: testInfra.natsUrl },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as T;
}

describe('admin parked list|replay|discard (real NATS and PostgreSQL)', () => {
  const schema = uniqueName('it_parked');
  const prefix = uniqueName('itp');
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 600 };
  const subject = `${prefix}.note.written`;
  const durable = `${prefix}-fragile`;
  const bystander = `${prefix}-bystander`;
  let dataSource: DataSource;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const consumers: Array<EventConsumer<NotePayload>> = [];
  let broken = true;
  const handled: string[] = [];
  const bystanderSaw: string[] = [];

  function consumer(name: string, handle: (note: string) => void): EventConsumer<NotePayload> {
    return new EventConsumer<NotePayload>(
      {
        durable: name,
        stream: stream.name,
        filterSubject: subject,
        payload: NotePayload,
        maxAttempts: 1,
        parkOnlyBecause: 'a test message',
        handle: async (data, context) => {
          await context.transaction(async () => {
            if (name === durable && broken) {
              throw new Error('handler bug');
            }
            handle(data.note);
          });
        },
      },
      dataSource,
      nc.jetstream(),
      jsm,
    );
  }

  async function publish(note: string): Promise<void> {
    const envelope = await dataSource.transaction((manager) => new OutboxWriter(new SystemClock()).add(asTransaction(manager), defineEvent(subject, NotePayload), { note }));
    await nc.jetstream().publish(subject, new TextEncoder().encode(JSON.stringify(envelope)), { msgID: envelope.eventId });
  }

  beforeAll(async () => {
    dataSource = new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: [], applicationName: 'it' }));
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await dataSource.synchronize();
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [stream, Streams.parked]);
    consumers.push(consumer(durable, (note) => handled.push(note)), consumer(bystander, (note) => bystanderSaw.push(note)));
    await Promise.all(consumers.map((one) => one.start()));
  });

  afterAll(async () => {
    await Promise.all(consumers.map((one) => one.stop()));
    for (const name of [durable, bystander]) {
      await jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${name}` });
    }
    await jsm.streams.delete(stream.name);
    await nc.drain();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('lists a parked message with its reason, replays it to the consumer that parked it, and it is handled once', async () => {
    await publish('first');
    await waitUntil(async () => (await admin<ParkedMessage[]>('list', '--durable', durable)).length === 1, 30_000, 100);
    const [parked] = await admin<ParkedMessage[]>('list', '--durable', durable);
    expect(parked).toMatchObject({ durable, originalSubject: subject, deliveries: 1, reason: 'handler bug' });
    expect(Number.isNaN(Date.parse(parked.parkedAt))).toBe(false);
    expect(bystanderSaw).toEqual(['first']);

    broken = false;
    const replayed = await admin<ReplayResult[]>('replay', '--seq', String(parked.seq));
    expect(replayed).toEqual([expect.objectContaining({ seq: parked.seq, durable, subject })]);
    await waitUntil(() => handled.length === 1, 30_000, 100);
    expect(handled).toEqual(['first']);
    expect(await admin<ParkedMessage[]>('list', '--durable', durable)).toEqual([]);
    // The copy went to the same subject; the other consumer acknowledged it without handling it again.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(bystanderSaw).toEqual(['first']);
  });

  it('discards a parked message: gone from PARKED, never handled', async () => {
    broken = true;
    await publish('second');
    await waitUntil(async () => (await admin<ParkedMessage[]>('list', '--durable', durable)).length === 1, 30_000, 100);
    const [parked] = await admin<ParkedMessage[]>('list', '--durable', durable);
    await admin('discard', '--seq', String(parked.seq));
    expect(await admin<ParkedMessage[]>('list', '--durable', durable)).toEqual([]);
    broken = false;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(handled).toEqual(['first']);
  });

  it('refuses an unknown sequence with a clear message', async () => {
    await expect(admin('replay', '--seq', '999999999')).rejects.toMatchObject({ stderr: expect.stringContaining('no parked message with sequence 999999999') as unknown });
  });

  it("with NATS unreachable, an order's discard says to run it again for that order, not for its whole account", async () => {
    const { stdout, stderr } = await run(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(__dirname, 'admin.ts'), 'parked', 'discard', '--account', '7', '--order', '11', '--json'], {
      cwd: ROOT,
      env: { ...process.env, NATS_URL: 'nats://127.0.0.1:1' },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({ discarded: 'not looked at' });
    expect(stderr).toContain('run `parked discard --account 7 --order 11` later');
  });
});
