// Relay passes per commit (issue 32): the services' outbox relay loop (`OutboxRelayLoop`: the in-process commit
// signal, LISTEN/NOTIFY, the safety poll) against real PostgreSQL, with `--writers` concurrent writers each
// committing `--commits` transactions of one outbox row, as the services write them. It counts the relay's claim
// statements, and those that found nothing (an empty pass: a wake with no news), per commit. The broker is a stub
// that acknowledges after `--publish-ms` (a JetStream acknowledgement's round trip), so only the database side is
// measured; each writer pauses `--pause-ms` between its commits (0: back to back); the safety poll is ten minutes.
// `--notify off` drops the outbox table's NOTIFY trigger (what commits cost without it; other replicas would then
// learn of rows only from the poll).
//   node -r ./tools/register.js tools/bench-orders/relay-passes.ts [--writers 1,16] [--commits 400] [--publish-ms 2] [--pause-ms 0,10] [--notify on|off]
import { SystemClock } from '@cp/clock';
import { defineEvent } from '@cp/contracts';
import { asTransaction, migrateServiceDatabase, serviceDataSourceOptions } from '@cp/database';
import { MESSAGING_ENTITIES, MESSAGING_MIGRATIONS, OutboxCommitSignal, OutboxRelay, OutboxWriter } from '@cp/messaging';
import { OutboxRelayLoop } from '@cp/runtime';
import { IsString } from 'class-validator';
import { JetStreamClient, PubAck } from 'nats';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';

class NotePayload {
  @IsString()
  note!: string;
}

const note = defineEvent('bench.relay.note', NotePayload);

/** The relay, counting its claim statements and the empty ones. */
class CountingRelay extends OutboxRelay {
  claims = 0;
  empty = 0;

  override async relayBatch(): Promise<number> {
    const published = await super.relayBatch();
    this.claims += 1;
    if (published === 0) {
      this.empty += 1;
    }
    return published;
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(url: string, writers: number, commits: number, publishMs: number, pauseMs: number, notify: boolean): Promise<string> {
  const schema = `bench_relay_${Date.now()}`;
  const dataSource = await new DataSource(
    serviceDataSourceOptions({ url, schema, entities: MESSAGING_ENTITIES, migrations: MESSAGING_MIGRATIONS, applicationName: 'bench-relay-passes', poolSize: Math.max(4, writers) }),
  ).initialize();
  await migrateServiceDatabase(dataSource, schema);
  if (!notify) {
    await dataSource.query(`DROP TRIGGER "outbox_event_notify" ON "${schema}"."outbox_event"`);
  }
  const js = { publish: () => pause(publishMs).then(() => ({}) as PubAck) } as unknown as JetStreamClient;
  const relay = new CountingRelay(dataSource, () => js, { pollIntervalMs: 600_000 });
  const signal = OutboxCommitSignal.on(dataSource);
  const loop = new OutboxRelayLoop(relay, signal);
  await loop.onApplicationBootstrap();
  try {
    // The listener's connection wakes one pass when it connects: let it go by before counting.
    await pause(500);
    relay.claims = 0;
    relay.empty = 0;
    const writer = new OutboxWriter(new SystemClock(), signal);
    const started = Date.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, index) => {
        for (let commit = 0; commit < commits / writers; commit += 1) {
          await dataSource.transaction((manager) => writer.add(asTransaction(manager), note, { note: `w${index}c${commit}` }));
          if (pauseMs > 0) {
            await pause(pauseMs);
          }
        }
      }),
    );
    const wroteMs = Date.now() - started;
    for (let waited = 0; waited < 200; waited += 1) {
      const rows = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${schema}".outbox_event WHERE published_at IS NULL`);
      if (rows[0].n === 0) {
        break;
      }
      await pause(50);
    }
    // Late notifications (of the last commits) still wake passes: counted too.
    await pause(1000);
    const round = (value: number): number => Math.round(value * 100) / 100;
    return `| ${notify ? 'on' : 'off'} | ${writers} | ${pauseMs} ms | ${commits} | ${Math.round((commits / wroteMs) * 1000)} | ${relay.claims} | ${relay.empty} | ${round(relay.claims / commits)} | ${round(relay.empty / commits)} |`;
  } finally {
    await loop.beforeApplicationShutdown();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      writers: { type: 'string', default: '1,16' },
      commits: { type: 'string', default: '400' },
      'publish-ms': { type: 'string', default: '2' },
      'pause-ms': { type: 'string', default: '0,10' },
      notify: { type: 'string', default: 'on' },
    },
  });
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const lines = [
    '| NOTIFY | writers | pause between commits | commits | commits / s | claim statements | empty claims | claims per commit | empty claims per commit |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const pauseMs of String(values['pause-ms']).split(',').map(Number)) {
    for (const writers of String(values.writers).split(',').map(Number)) {
      lines.push(await measure(url, writers, Number(values.commits), Number(values['publish-ms']), pauseMs, values.notify !== 'off'));
    }
  }
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
