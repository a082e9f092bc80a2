// Where the time goes when the JetStream leader of a work-queue stream is killed (issue 35): a three-node
// cluster of its own on loopback, one R3 work-queue stream and one durable pull consumer made and run by
// `@cp/messaging` exactly as the services do (EventConsumer, the JOBS ack wait), and a publisher that behaves
// like the outbox relay (every 250 ms, Nats-Msg-Id, a failed batch retried at the next poll). Per run: kill -9
// of the node leading the stream, restart after 1 s (as the chaos row), and the timeline of what follows:
// service connection reconnected, stream and consumer leaders elected again, first publish acknowledged,
// first message handled, every message published before the kill handled (the recovery), with publish and
// pull failures by kind. Prints a table and writes bench-results/jetstream-failover.json.
//   node -r ./tools/register.js tools/bench-jetstream-failover/main.ts [--runs 3] [--port-base 9770]
import { StreamDefinition } from '@cp/contracts';
import { EventConsumer, HEARTBEAT_JOB_ACK_WAIT_MS, NatsConnectionService, natsServers, OUTBOX_PUBLISH_TIMEOUT_MS } from '@cp/messaging';
import { IsString } from 'class-validator';
import { connect, Events, NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { natsClusterNodes, natsClusterUrl, NatsClusterNode, portOpen, ROOT, startNatsCluster, startNatsClusterNode } from '../stack/stack';

class WorkPayload {
  @IsString()
  note!: string;
}

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'port-base': { type: 'string', default: '9770' },
    // The relay's own acknowledgement wait; --publish-timeout-ms 5000 gives the client's default (before issue 35's change).
    'publish-timeout-ms': { type: 'string', default: String(OUTBOX_PUBLISH_TIMEOUT_MS) },
  },
});
const RUNS = Number(args.runs);
const PORT_BASE = Number(args['port-base']);
const PUBLISH_TIMEOUT_MS = Number(args['publish-timeout-ms']);
const POLL_MS = 100;
const WORK_MS = 150;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Published {
  firstAttemptAt: number;
  ackedAt?: number;
  handledAt?: number;
  handled: number;
  /** The broker's delivery count of the first handling (2+: redelivered after its ack wait). */
  deliveryCount?: number;
}

interface RunRow {
  run: number;
  killed: string;
  consumerLeaderKilled: boolean;
  reconnectedMs: number | null;
  streamLeaderMs: number | null;
  consumerLeaderMs: number | null;
  firstPublishMs: number | null;
  firstHandledMs: number | null;
  recoverMs: number | null;
  /** Longest time from a message's first publish attempt to its handling, and whether it was a redelivery. */
  worstLatencyMs: number;
  worstRedelivered: boolean;
  /** The consumer's connection was on the killed node. */
  clientOnKilled: boolean;
  publishFailures: Record<string, number>;
  pullFailures: number;
  duplicates: number;
}

/** A failure's kind for the table: the nats.js code or the first words of the message. */
function kindOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message.slice(0, 40) : 'unknown';
}

async function leaderOf(nc: NatsConnection, stream: string, durable?: string): Promise<string | undefined> {
  const jsm = await nc.jetstreamManager({ timeout: 1000, checkAPI: false });
  const info = durable ? await jsm.consumers.info(stream, durable) : await jsm.streams.info(stream);
  return info.cluster?.leader;
}

/** Until `probe` answers a name other than `not`; the ms since `since`, or null past the limit. */
async function untilLeader(probe: () => Promise<string | undefined>, not: string, since: number, limitMs: number): Promise<number | null> {
  while (Date.now() - since < limitMs) {
    const leader = await probe().catch(() => undefined);
    if (leader && leader !== not) {
      return Date.now() - since;
    }
    await pause(50);
  }
  return null;
}

async function oneRun(run: number, nodes: NatsClusterNode[], pids: number[]): Promise<RunRow> {
  const url = natsClusterUrl(nodes);
  const name = `FAILOVER${run}`;
  const definition: StreamDefinition = { name, subjects: [`failover${run}.>`], retention: 'workqueue', maxAgeSeconds: 600, duplicateWindowSeconds: 120 };
  const subject = `failover${run}.work`;
  const service = new NatsConnectionService({ url, name: 'bench-failover', streams: [definition], streamReplicas: 3 });
  await service.connect();
  let reconnectedAt: number | undefined;
  void (async () => {
    for await (const status of service.nc.status()) {
      if (status.type === Events.Reconnect && reconnectedAt === undefined) {
        reconnectedAt = Date.now();
      }
    }
  })();
  const published = new Map<string, Published>();
  let duplicates = 0;
  let pullFailures = 0;
  const durable = `failover${run}-work`;
  const consumer = new EventConsumer<WorkPayload>(
    {
      durable,
      stream: name,
      filterSubject: subject,
      payload: WorkPayload,
      parkOnlyBecause: 'a benchmark message',
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      concurrency: 2,
      handle: async (_data, context) => {
        await pause(WORK_MS);
        const entry = published.get(context.eventId);
        if (entry) {
          entry.handled += 1;
          duplicates += entry.handled > 1 ? 1 : 0;
          entry.handledAt ??= Date.now();
          entry.deliveryCount ??= context.deliveryCount;
        }
      },
    },
    new DataSource({ type: 'postgres' }),
    service.js,
    service.jsm,
  );
  // Pull failures are logged by the consumer as warnings; counted through its logger.
  const logger = (consumer as unknown as { logger: { warn: (...parts: unknown[]) => void } }).logger;
  const warn = logger.warn.bind(logger);
  logger.warn = (...parts: unknown[]) => {
    if (parts[1] === 'pull failed; retrying') {
      pullFailures += 1;
    }
    warn(...parts);
  };
  await consumer.start();
  const observer = await connect({ servers: natsServers(url), maxReconnectAttempts: -1, reconnectTimeWait: 100 });

  // The relay: every poll, whatever is pending, published together; a failure leaves the batch for the next poll.
  let stopping = false;
  const pending: string[] = [];
  const publishFailures: Record<string, number> = {};
  let killAt = Number.POSITIVE_INFINITY;
  const producer = (async () => {
    while (!stopping) {
      const id = randomUUID();
      published.set(id, { firstAttemptAt: Date.now(), handled: 0 });
      pending.push(id);
      const batch = [...pending];
      try {
        await Promise.all(
          batch.map((eventId) => service.js.publish(subject, new TextEncoder().encode(JSON.stringify({ eventId, data: { note: eventId } })), { msgID: eventId, timeout: PUBLISH_TIMEOUT_MS })),
        );
        const now = Date.now();
        for (const eventId of batch) {
          const entry = published.get(eventId);
          if (entry && entry.ackedAt === undefined) {
            entry.ackedAt = now;
          }
        }
        pending.splice(0, batch.length);
      } catch (error) {
        if (Date.now() >= killAt) {
          publishFailures[kindOf(error)] = (publishFailures[kindOf(error)] ?? 0) + 1;
        }
      }
      await pause(POLL_MS);
    }
  })();

  await pause(3000);
  const killed = (await leaderOf(observer, name)) ?? '';
  const clientServer = service.nc.getServer();
  const consumerLeader = (await leaderOf(observer, name, durable)) ?? '';
  const index = nodes.findIndex((node) => node.name === killed);
  killAt = Date.now();
  process.kill(pids[index], 'SIGKILL');
  const streamLeader = untilLeader(() => leaderOf(observer, name), killed, killAt, 60_000);
  // A leader answering after the kill: a new one, or the killed node itself once restarted and elected again.
  const consumerElected = untilLeader(() => leaderOf(observer, name, durable), '', killAt, 60_000);
  while (await portOpen('127.0.0.1', nodes[index].clientPort)) {
    await pause(50);
  }
  await pause(1000);
  pids[index] = await startNatsClusterNode(nodes[index], nodes);
  const [streamLeaderMs, consumerLeaderMs] = await Promise.all([streamLeader, consumerElected]);

  // Recovered: every message first tried before the kill, or while it struck (the second after), handled.
  const before = [...published.values()].filter((entry) => entry.firstAttemptAt <= killAt + 1000);
  const deadline = Date.now() + 90_000;
  while (before.some((entry) => entry.handledAt === undefined) && Date.now() < deadline) {
    await pause(100);
  }
  await pause(2000);
  stopping = true;
  await producer;
  await consumer.stop();
  const after = [...published.values()].filter((entry) => entry.firstAttemptAt > killAt);
  const since = (times: Array<number | undefined>): number | null => {
    const known = times.filter((time): time is number => time !== undefined && time > killAt);
    return known.length > 0 ? Math.min(...known) - killAt : null;
  };
  const worst = [...published.values()]
    .filter((entry) => entry.handledAt !== undefined)
    .reduce((max, entry) => ((entry.handledAt ?? 0) - entry.firstAttemptAt > (max.handledAt ?? 0) - max.firstAttemptAt ? entry : max), { firstAttemptAt: 0, handledAt: 0, handled: 0 } as Published);
  const row: RunRow = {
    run,
    killed,
    consumerLeaderKilled: consumerLeader === killed,
    reconnectedMs: reconnectedAt === undefined ? null : reconnectedAt - killAt,
    streamLeaderMs,
    consumerLeaderMs,
    firstPublishMs: since(after.map((entry) => entry.ackedAt)),
    firstHandledMs: since([...published.values()].map((entry) => entry.handledAt)),
    recoverMs: before.every((entry) => entry.handledAt !== undefined) ? Math.max(...before.map((entry) => entry.handledAt ?? 0)) - killAt : null,
    worstLatencyMs: (worst.handledAt ?? 0) - worst.firstAttemptAt,
    worstRedelivered: (worst.deliveryCount ?? 1) > 1,
    clientOnKilled: clientServer === `127.0.0.1:${nodes[index].clientPort}`,
    publishFailures,
    pullFailures,
    duplicates,
  };
  await service.jsm.streams.delete(name).catch(() => undefined);
  await observer.close();
  await service.onApplicationShutdown();
  return row;
}

async function main(): Promise<void> {
  const dir = path.join(ROOT, 'tmp', `bench-failover-${PORT_BASE}`);
  rmSync(dir, { recursive: true, force: true });
  const nodes = natsClusterNodes(PORT_BASE, PORT_BASE + 3, dir);
  const pids = await startNatsCluster(nodes);
  const rows: RunRow[] = [];
  try {
    for (let run = 1; run <= RUNS; run += 1) {
      rows.push(await oneRun(run, nodes, pids));
      // Every node back and current before the next kill.
      await pause(3000);
    }
  } finally {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
  const seconds = (ms: number | null): string => (ms === null ? '—' : (ms / 1000).toFixed(1)).padStart(8);
  process.stdout.write(
    `\nrun | killed | consumer leader too | reconnect | stream leader | consumer leader | 1st publish | 1st handled | recover (s) | worst latency (s) | redelivered | client on killed | publish failures | pull failures | dup\n` +
      rows
        .map(
          (row) =>
            `${String(row.run).padStart(3)} | ${row.killed.padEnd(6)} | ${String(row.consumerLeaderKilled).padEnd(19)} |${seconds(row.reconnectedMs)}  |${seconds(row.streamLeaderMs)}      |${seconds(row.consumerLeaderMs)}        |${seconds(row.firstPublishMs)}    |${seconds(row.firstHandledMs)}    |${seconds(row.recoverMs)}     |${seconds(row.worstLatencyMs)}          | ${String(row.worstRedelivered).padEnd(11)} | ${String(row.clientOnKilled).padEnd(16)} | ${JSON.stringify(row.publishFailures)} | ${row.pullFailures} | ${row.duplicates}`,
        )
        .join('\n') +
      '\n',
  );
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench-results', 'jetstream-failover.json'), `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
