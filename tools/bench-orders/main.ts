// Benchmark of orders end to end on localhost (issues 4 and 32), against all services as separate processes,
// through the public API, with a local webhook receiver:
// - 1-megapixel JPEG embed orders of one text, one at a time: creation → `complete` median and p95, a histogram,
//   and the latency budget per hop (creation → upload slot, PUT → job, job → engine result, engine result →
//   `complete`, `complete` → webhook delivery), against the engine's own time for the same image (the floor);
// - extract orders of a 2560×1600 JPEG pair (the original and a watermarked copy), one at a time and from 3
//   concurrent clients, per hop;
// - embed orders of 2 files × 2 texts (4 outputs, a ZIP download): creation → `complete` per hop, the package step
//   (the last output stored → `complete`) included, and each order's ZIP downloaded and checked;
// - throughput of 1 MP embed orders (8 clients) with 1 and 2 watermark-processor replicas, and the share of the
//   stack's CPU time the processors used.
// Hop times come from the services' own records and the wire: when each job and result message reached a NATS
// subscriber of the benchmark, the orders service's `created_at`/`completed_at`, and the receiver's clock (one
// machine, one clock).
//   node -r ./tools/register.js tools/bench-orders/main.ts [--latency-orders 50] [--orders 40] [--extract-orders 10]
//        [--extract-clients 3] [--package-orders 20] [--replicas 1,2] [--port-base 7000]
import { SystemClock } from '@cp/clock';
import { EventSubjects, JobSubjects } from '@cp/contracts';
import { serviceDataSourceOptions } from '@cp/database';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { readZip } from '@cp/testing';
import { embedImage, extractImage, WatermarkKey } from '@cp/watermark';
import { connect, NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { createDatabase, databaseUrl, ensurePostgres, gatewayUrl, newStack, portOpen, ROOT, SERVICE_NAMES, ServiceName, StackLayout, StackProcesses, startPrivateNats } from '../stack/stack';

interface Stats {
  medianMs: number;
  p95Ms: number;
}

interface HopRow extends Stats {
  hop: string;
}

interface ThroughputRow {
  processors: number;
  orders: number;
  perMinute: number;
  /** CPU seconds of the processor replicas over all the stack's service processes (and the S3 server). */
  processorCpuShare: number;
  /** The processors' CPU seconds per wall second (2 = both cores). */
  processorCores: number;
  /** CPU milliseconds per order of each process group (services by name, the S3 server, NATS, PostgreSQL). */
  cpuMsPerOrder: Record<string, number>;
}

/** What one order went through, in ms since the epoch (null: the step was not seen). */
interface OrderTimes {
  orderId: string;
  requested: number;
  slotGiven: number;
  putDone: number;
  createdAt: number;
  job: number | null;
  result: number | null;
  completedAt: number;
  webhook: number | null;
}

/** Bucket width of the histogram of creation → `complete`. */
const HISTOGRAM_STEP_MS = 25;
const HISTOGRAM_BUCKETS = 40;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

function stats(values: number[]): Stats {
  return { medianMs: Math.round(percentile(values, 50) * 10) / 10, p95Ms: Math.round(percentile(values, 95) * 10) / 10 };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function layoutFor(processors: number, natsUrl: string, base: number): Promise<StackLayout> {
  // Not 6000: fetch refuses the X11 port (a "bad port" of the fetch standard).
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [base + 100 + index]])) as Record<ServiceName, number[]>;
  ports['watermark-processor'] = Array.from({ length: processors }, (_, replica) => base + 200 + replica);
  return {
    name: `bench-${base}-${processors}`,
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    // The port base in the name: two engineers' runs on one machine do not share (nor drop) a database.
    database: base === 7000 ? `cp_bench_${processors}` : `cp_bench_${base}_${processors}`,
    natsUrl,
    s3Port: base + 900,
    ports: { ...ports, 'api-gateway': [base] },
    logLevel: 'warn',
    // The webhook receiver runs on this machine's loopback.
    extraEnv: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1' },
  };
}

/** A local webhook endpoint: when each order's `order.completed` arrived (the receiver's clock). */
class WebhookReceiver {
  readonly completedAt = new Map<string, number>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventType?: string; data?: { orderId?: string } };
        if (/\.completed$/.test(body.eventType ?? '') && body.data?.orderId && !receiver.completedAt.has(body.data.orderId)) {
          receiver.completedAt.set(body.data.orderId, at);
        }
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface Created {
  orderId: string;
  requested: number;
  slotGiven: number;
  putDone: number;
}

class Client {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  async api<T>(route: string, body?: object): Promise<{ status: number; data: T }> {
    const response = await fetch(`${this.base}${route}`, {
      method: body ? 'POST' : 'GET',
      headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    const parsed = (await response.json()) as { data: T };
    return { status: response.status, data: parsed.data };
  }

  /** Creates an order, then PUTs `contents[i]` to the i-th upload slot (all at once). */
  async createAndUpload(route: string, body: object, contents: Buffer[]): Promise<Created> {
    const requested = Date.now();
    const created = await this.api<{ orderId: string; files: Array<{ uploadUrl: string }> }>(route, { idempotencyKey: randomUUID(), ...body });
    const slotGiven = Date.now();
    if (created.status !== 200) {
      throw new Error(`create failed: ${created.status} ${JSON.stringify(created.data)}`);
    }
    await Promise.all(
      created.data.files.map(async (file, index) => {
        const upload = await fetch(file.uploadUrl, { method: 'PUT', body: new Uint8Array(contents[index]) });
        await upload.arrayBuffer();
      }),
    );
    return { orderId: created.data.orderId, requested, slotGiven, putDone: Date.now() };
  }

  createEmbed(image: Buffer, fileName: string): Promise<Created> {
    return this.createAndUpload('/api/v3/orders/wtr-embed', { files: [{ fileName, watermarks: [{ text: 'bench recipient' }] }] }, [image]);
  }

  /** Two files of two texts each: four outputs, whose download is one ZIP. */
  createEmbedPackage(image: Buffer): Promise<Created> {
    const file = (fileName: string) => ({ fileName, watermarks: [{ text: 'bench recipient one' }, { text: 'bench recipient two' }] });
    return this.createAndUpload('/api/v3/orders/wtr-embed', { files: [file('first.jpg'), file('second.jpg')] }, [image, image]);
  }

  /** The file to inspect is second; the original first (the order's file order). */
  createExtract(original: Buffer, inspected: Buffer): Promise<Created> {
    return this.createAndUpload('/api/v3/orders/wtr-extract', { file: { fileName: 'found.jpg', originalFile: { fileName: 'original.jpg' } } }, [original, inspected]);
  }
}

/** Statements the benchmark itself ran on the stack's database (each its own transaction), for `PgTransactions`. */
let benchStatements = 0;

/**
 * Committed PostgreSQL transactions of the stack's database per order (pg_stat_database), less the benchmark's own
 * statements and the stack's idle rate (safety polls, sweepers) measured over a quiet spell just before. Orders made
 * one at a time show every relay pass: a pass that finds nothing is one transaction (its claim statement).
 */
class PgTransactions {
  private constructor(
    private readonly orders: DataSource,
    private readonly idlePerMs: number,
  ) {}

  static async measureIdle(orders: DataSource, spellMs: number): Promise<PgTransactions> {
    const probe = new PgTransactions(orders, 0);
    const start = await probe.read();
    await pause(spellMs);
    const end = await probe.read();
    return new PgTransactions(orders, Math.max(0, end.count - start.count - (end.ownStatements - start.ownStatements)) / (end.at - start.at));
  }

  /** The counter now (after the 1.5 s in which backends report their statistics) and the benchmark's statements since the last read. */
  async read(): Promise<{ count: number; at: number; ownStatements: number }> {
    await pause(1500);
    const before = benchStatements;
    benchStatements += 1;
    const rows = await this.orders.query<Array<{ count: string }>>('SELECT xact_commit::text AS count FROM pg_stat_database WHERE datname = current_database()');
    return { count: Number(rows[0]?.count ?? 0), at: Date.now(), ownStatements: before };
  }

  /** Transactions per order between two reads. */
  perOrder(start: { count: number; at: number; ownStatements: number }, end: { count: number; at: number; ownStatements: number }, orders: number): number {
    const own = end.ownStatements - start.ownStatements;
    return Math.round(((end.count - start.count - own - this.idlePerMs * (end.at - start.at)) / orders) * 10) / 10;
  }

  get idlePerSecond(): number {
    return Math.round(this.idlePerMs * 1000 * 10) / 10;
  }
}

/** Server-side creation and completion times of the orders, once all are complete. */
async function waitCompleted(orders: DataSource, ids: string[], timeoutMs: number): Promise<Map<string, { createdAt: number; completedAt: number }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    benchStatements += 1;
    const rows = await orders.query<Array<{ id: string; status: string; created: number; completed: number | null }>>(
      `SELECT id::text, status, EXTRACT(EPOCH FROM created_at) * 1000 AS created, EXTRACT(EPOCH FROM completed_at) * 1000 AS completed FROM "order" WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    const failed = rows.filter((row) => row.status === 'failed');
    if (failed.length > 0) {
      throw new Error(`orders failed: ${failed.map((row) => row.id).join(', ')}`);
    }
    const done = rows.filter((row) => row.status === 'complete');
    if (done.length === ids.length) {
      return new Map(done.map((row) => [row.id, { createdAt: Number(row.created), completedAt: Number(row.completed ?? 0) }]));
    }
    if (Date.now() > deadline) {
      throw new Error(`only ${done.length}/${ids.length} orders completed in time`);
    }
    await pause(20);
  }
}

/**
 * When each job and event of an order went out: a plain NATS subscription sees every message published to the
 * streams' subjects as the server stores it (jobs are removed from their work queue once done, so they cannot be
 * read back afterwards). The first message per subject and order counts.
 */
class MessageClock {
  private readonly seen = new Map<string, number>();
  private readonly lastSeen = new Map<string, number>();
  private readonly counts = new Map<string, number>();

  private constructor(private readonly nc: NatsConnection) {}

  static async start(natsUrl: string): Promise<MessageClock> {
    const clock = new MessageClock(await connect({ servers: natsUrl }));
    for (const subject of ['job.>', 'evt.>']) {
      clock.nc.subscribe(subject, {
        callback: (error, message) => {
          if (error) {
            return;
          }
          const at = Date.now();
          clock.counts.set(message.subject, (clock.counts.get(message.subject) ?? 0) + 1);
          const orderId = (message.json<{ data?: { orderId?: unknown } }>().data ?? {}).orderId;
          const key = `${message.subject}|${String(orderId)}`;
          if (orderId !== undefined && !clock.seen.has(key)) {
            clock.seen.set(key, at);
          }
          if (orderId !== undefined) {
            clock.lastSeen.set(key, at);
          }
        },
      });
    }
    await clock.nc.flush();
    return clock;
  }

  at(subject: string, orderId: string): number | null {
    return this.seen.get(`${subject}|${orderId}`) ?? null;
  }

  /** The last message of `subject` about the order (of several outputs: the last one). */
  lastAt(subject: string, orderId: string): number | null {
    return this.lastSeen.get(`${subject}|${orderId}`) ?? null;
  }

  count(subject: string): number {
    return this.counts.get(subject) ?? 0;
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}

/** CPU seconds (user + system) of a process so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the command; clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Pids of the machine's processes with this command name (PostgreSQL's postmaster, backends and workers). */
function pidsNamed(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command) pids.push(Number(entry));
    } catch {
      // the process ended while listing
    }
  }
  return pids;
}

/**
 * CPU seconds so far per process group: each service (replicas summed), the S3 server, the benchmark's NATS and
 * every PostgreSQL process of the machine (the benchmark's database shares the server with nothing else while it runs;
 * a backend that exits during the row takes its seconds with it, the pools keep theirs open).
 */
function cpuByGroup(stack: StackProcesses, natsPid: number): Map<string, number> {
  const groups = new Map<string, number>();
  const add = (group: string, seconds: number): void => {
    groups.set(group, (groups.get(group) ?? 0) + seconds);
  };
  for (const [key, record] of Object.entries(stack.state.processes)) {
    add(key.replace(/#\d+$/, ''), cpuSeconds(record.pid));
  }
  add('NATS', cpuSeconds(natsPid));
  for (const pid of pidsNamed('postgres')) add('PostgreSQL', cpuSeconds(pid));
  return groups;
}

/** Groups that are not the stack's own processes (the processors' share is of the stack's CPU time). */
const OUTSIDE_THE_STACK = new Set(['NATS', 'PostgreSQL']);

const hopOf = (hop: string, values: Array<number | null>): HopRow => ({ hop, ...stats(values.filter((value): value is number => value !== null)) });

function hops(times: OrderTimes[], resultName: string): HopRow[] {
  const of = hopOf;
  return [
    of('creation → upload slot (API answer)', times.map((t) => t.slotGiven - t.requested)),
    of('upload slot → PUT done (the client uploads)', times.map((t) => t.putDone - t.slotGiven)),
    of('PUT done → job published', times.map((t) => (t.job === null ? null : t.job - t.putDone))),
    of(`job → ${resultName} (processor: read, engine, store)`, times.map((t) => (t.job === null || t.result === null ? null : t.result - t.job))),
    of(`${resultName} → complete`, times.map((t) => (t.result === null ? null : t.completedAt - t.result))),
    of('complete → webhook received', times.map((t) => (t.webhook === null ? null : t.webhook - t.completedAt))),
    of('creation → complete (server clock)', times.map((t) => t.completedAt - t.createdAt)),
  ];
}

function histogram(values: number[]): string[] {
  const counts = new Array<number>(HISTOGRAM_BUCKETS + 1).fill(0);
  for (const value of values) {
    counts[Math.min(HISTOGRAM_BUCKETS, Math.floor(value / HISTOGRAM_STEP_MS))] += 1;
  }
  const last = counts.reduce((found, count, index) => (count > 0 ? index : found), 0);
  return counts.slice(0, last + 1).map((count, index) => {
    const label = index === HISTOGRAM_BUCKETS ? `≥ ${index * HISTOGRAM_STEP_MS} ms` : `${index * HISTOGRAM_STEP_MS}–${(index + 1) * HISTOGRAM_STEP_MS - 1} ms`;
    return `${label.padStart(12)} | ${'#'.repeat(count)} ${count}`;
  });
}

/** `to - from`, or null when either was not seen. */
const delta = (from: number | null, to: number | null): number | null => (from === null || to === null ? null : to - from);

/** The order's download: a URL to `<orderId>-watermarked.zip`, a ZIP of 4 outputs (null when so, else the problem). */
async function checkZipDownload(client: Client, orderId: string): Promise<string | null> {
  const link = await client.api<{ downloadUrl: string }>(`/api/v3/orders/${orderId}/download`);
  if (link.status !== 200 || !new URL(link.data.downloadUrl).pathname.endsWith(`/${orderId}-watermarked.zip`)) {
    return `${orderId}: ${link.status} ${JSON.stringify(link.data)}`;
  }
  const entries = await readZip(Buffer.from(await (await fetch(link.data.downloadUrl)).arrayBuffer()));
  if (entries.size !== 4 || [...entries.values()].some((entry) => entry.length === 0)) {
    return `${orderId}: ${entries.size} entries (${[...entries.keys()].join(', ')})`;
  }
  return null;
}

/** Median of the engine alone on this machine, the same image, in this process: the floor of an order. */
async function engineFloor(work: () => Promise<unknown>, runs: number): Promise<number> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return Math.round(percentile(times, 50) * 10) / 10;
}

interface Setup {
  stack: StackProcesses;
  messages: MessageClock;
  layout: StackLayout;
  orders: DataSource;
  client: Client;
  receiver: WebhookReceiver;
  close(): Promise<void>;
}

async function startStack(processors: number, natsUrl: string, portBase: number): Promise<Setup> {
  const layout = await layoutFor(processors, natsUrl, portBase);
  await createDatabase(layout.adminDatabaseUrl, layout.database, true);
  const stack = newStack(layout, false);
  try {
    await stack.startAll();
  } catch (error) {
    // A service that did not get ready (a busy machine): the ones that did are stopped, not left running.
    await stack.stopAll();
    throw error;
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  const open = (schema: string, entities: Function[]) =>
    new DataSource(serviceDataSourceOptions({ url: databaseUrl(layout), schema, entities, migrations: [], applicationName: 'bench', poolSize: 2 })).initialize();
  const gateway = await open('gateway', [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES]);
  const orders = await open('orders', []);
  const accounts = new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
  const { account } = await accounts.createAccount(`bench-${Date.now()}`, 'enterprise', `bench-${Date.now()}@example.com`, 100_000);
  const key = (await accounts.issueKey(account.id, 'live')).key;
  const client = new Client(gatewayUrl(layout), key);
  const receiver = await WebhookReceiver.start();
  const messages = await MessageClock.start(natsUrl);
  for (let attempt = 0; ; attempt += 1) {
    const rows = await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [account.id]);
    // The webhooks service learns the account from its creation event: retried until it knows it.
    if (rows[0]?.balance === 100_000 && (await client.api('/api/v2/orders/webhooks', { name: 'bench', url: receiver.url })).status === 201) {
      break;
    }
    if (attempt > 200) {
      throw new Error('credits or the webhook did not arrive');
    }
    await pause(100);
  }
  return {
    stack,
    layout,
    orders,
    client,
    receiver,
    messages,
    close: async () => {
      await messages.close();
      await receiver.stop();
      await gateway.destroy();
      await orders.destroy();
      await stack.stopAll();
    },
  };
}

/**
 * `count` orders made by `create` from `clients` concurrent clients, each waiting for its order's `complete`
 * before the next; their times per hop, once all are complete and announced. The result is the last message of
 * `resultSubject` about the order (of an order with several outputs: its last output).
 */
async function sequential(
  setup: Setup,
  count: number,
  create: () => Promise<Created>,
  jobSubject: string,
  resultSubject: string,
  clients = 1,
): Promise<OrderTimes[]> {
  const created: Created[] = [];
  const server = new Map<string, { createdAt: number; completedAt: number }>();
  let left = count;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left > 0) {
        left -= 1;
        const order = await create();
        created.push(order);
        server.set(order.orderId, (await waitCompleted(setup.orders, [order.orderId], 120_000)).get(order.orderId) ?? { createdAt: 0, completedAt: 0 });
      }
    }),
  );
  // Webhooks of the last orders may still be on their way.
  for (let waited = 0; waited < 100 && created.some((order) => !setup.receiver.completedAt.has(order.orderId)); waited += 1) {
    await pause(50);
  }
  return created.map((order) => {
    const times = server.get(order.orderId) ?? { createdAt: 0, completedAt: 0 };
    return {
      ...order,
      ...times,
      job: setup.messages.at(jobSubject, order.orderId),
      result: setup.messages.lastAt(resultSubject, order.orderId),
      webhook: setup.receiver.completedAt.get(order.orderId) ?? null,
    };
  });
}

async function throughput(setup: Setup, processors: number, image: Buffer, count: number, natsPid: number): Promise<ThroughputRow> {
  const groupsBefore = cpuByGroup(setup.stack, natsPid);
  const started = Date.now();
  const ids: string[] = [];
  const queue = Array.from({ length: count }, (_, index) => index);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (queue.shift() !== undefined) {
        ids.push((await setup.client.createEmbed(image, 'photo.jpg')).orderId);
      }
    }),
  );
  await waitCompleted(setup.orders, ids, 600_000);
  const elapsedMs = Date.now() - started;
  const spent = [...cpuByGroup(setup.stack, natsPid)].map(([group, seconds]) => [group, seconds - (groupsBefore.get(group) ?? 0)] as const);
  const cpuMsPerOrder = Object.fromEntries(spent.map(([group, seconds]) => [group, Math.round((seconds * 1000 * 10) / count) / 10] as const));
  const processorCpu = spent.find(([group]) => group === 'watermark-processor')?.[1] ?? 0;
  const stackTotal = spent.filter(([group]) => !OUTSIDE_THE_STACK.has(group)).reduce((sum, [, seconds]) => sum + seconds, 0);
  return {
    processors,
    orders: count,
    perMinute: Math.round((count / elapsedMs) * 60_000 * 10) / 10,
    processorCpuShare: Math.round((processorCpu / Math.max(0.01, stackTotal)) * 1000) / 10,
    processorCores: Math.round((processorCpu / (elapsedMs / 1000)) * 100) / 100,
    cpuMsPerOrder,
  };
}

/** One column per throughput row, one line per process group, and the sum (what an order costs the 2 cores). */
function cpuGroupTable(rows: ThroughputRow[]): string[] {
  const groups = [...new Set(rows.flatMap((row) => Object.keys(row.cpuMsPerOrder)))].sort();
  const total = (row: ThroughputRow): number => Math.round(Object.values(row.cpuMsPerOrder).reduce((sum, ms) => sum + ms, 0) * 10) / 10;
  return [
    `| process | ${rows.map((row) => `${row.processors} processor replica(s)`).join(' | ')} |`,
    `|---|${rows.map(() => '---|').join('')}`,
    ...groups.map((group) => `| ${group} | ${rows.map((row) => row.cpuMsPerOrder[group] ?? 0).join(' | ')} |`),
    `| **all** | ${rows.map((row) => `**${total(row)}**`).join(' | ')} |`,
  ];
}

const hopTable = (rows: HopRow[]): string[] => [
  '| hop | median | p95 |',
  '|---|---|---|',
  ...rows.map((row) => (Number.isNaN(row.medianMs) ? `| ${row.hop} | not seen | not seen |` : `| ${row.hop} | ${row.medianMs} ms | ${row.p95Ms} ms |`)),
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '40' },
      'latency-orders': { type: 'string', default: '50' },
      'extract-orders': { type: 'string', default: '10' },
      /** The extract row is measured again with this many clients at once (the issue's "3 concurrent clients"). */
      'extract-clients': { type: 'string', default: '3' },
      'package-orders': { type: 'string', default: '20' },
      /** Ports of the stacks: the gateway at the base, services at base + 100…, processors at base + 200…, S3 at base + 900. */
      'port-base': { type: 'string', default: '7000' },
      /** Processor replica counts, one stack each; the latency and extract rows run on the first. */
      replicas: { type: 'string', default: '1,2' },
    },
  });
  const throughputOrders = Number(values.orders);
  const latencyOrders = Number(values['latency-orders']);
  const extractOrders = Number(values['extract-orders']);
  const extractClients = Number(values['extract-clients']);
  const packageOrders = Number(values['package-orders']);
  const portBase = Number(values['port-base']);
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensurePostgres(adminUrl);
  // The inputs first: a missing corpus file leaves no NATS server behind.
  // A 1-megapixel JPEG (1250 x 800) made from a corpus photo, and the 2560 x 1600 photo itself for the extract pair.
  const photo = readFileSync(path.resolve(ROOT, '..', 'shared', 'corpus', 'photos', 'kite-2560x1600.jpg'));
  // Not base + 80/90/95: tools/bench-api's NATS, S3 and bare route on the same base.
  let natsPort = portBase === 7000 ? 4290 : portBase + 890;
  while (await portOpen('127.0.0.1', natsPort)) {
    natsPort += 1;
  }
  const natsPid = await startPrivateNats(natsPort, path.join(ROOT, 'tmp', 'bench-nats', String(Date.now())));
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const image = await sharp(photo).resize(1250, 800).jpeg({ quality: 90 }).toBuffer();
  const key: WatermarkKey = { secret: 'bench-floor', version: 'v3' };
  const embedFloorMs = await engineFloor(() => embedImage(image, 42n, { key }), 10);
  const markedLocally = (await embedImage(photo, 42n, { key })).data;
  const extractFloorMs = await engineFloor(() => extractImage(markedLocally, photo, { key }), 5);

  const lines: string[] = [];
  const json: Record<string, unknown> = { measuredAt: new Date().toISOString(), imageBytes: image.length, embedFloorMs, extractFloorMs };
  const throughputRows: ThroughputRow[] = [];
  try {
    const replicaCounts = String(values.replicas).split(',').map(Number);
    for (const processors of replicaCounts) {
      const setup = await startStack(processors, natsUrl, portBase);
      try {
        // Warm-up: the first order pays for lazy initialisation in every service.
        const warm = await setup.client.createEmbed(image, 'photo.jpg');
        await waitCompleted(setup.orders, [warm.orderId], 60_000);
        if (processors === replicaCounts[0]) {
          const transactions = await PgTransactions.measureIdle(setup.orders, 5000);
          const transactionsBefore = await transactions.read();
          const embeds = await sequential(setup, latencyOrders, () => setup.client.createEmbed(image, 'photo.jpg'), JobSubjects.watermarkEmbed, EventSubjects.outputCompleted);
          const transactionsPerOrder = transactions.perOrder(transactionsBefore, await transactions.read(), latencyOrders);
          const endToEnd = embeds.map((t) => t.completedAt - t.createdAt);
          const webhookLag = embeds.filter((t) => t.webhook !== null).map((t) => (t.webhook ?? 0) - t.completedAt);
          const packages = setup.messages.count(JobSubjects.watermarkPackage);
          const embedHops = hops(embeds, 'output stored');
          const e2e = stats(endToEnd);

          // The extract pair: a watermarked copy of the 2560 x 1600 photo made by an embed order of this account.
          const source = await setup.client.createEmbed(photo, 'kite.jpg');
          await waitCompleted(setup.orders, [source.orderId], 120_000);
          const link = await setup.client.api<{ downloadUrl: string }>(`/api/v3/orders/${source.orderId}/download`);
          const marked = Buffer.from(await (await fetch(link.data.downloadUrl)).arrayBuffer());
          const extracts = await sequential(setup, extractOrders, () => setup.client.createExtract(photo, marked), JobSubjects.watermarkExtract, EventSubjects.extractCompleted);
          const extractHops = hops(extracts, 'extract result');
          const concurrentExtracts = await sequential(
            setup,
            extractOrders,
            () => setup.client.createExtract(photo, marked),
            JobSubjects.watermarkExtract,
            EventSubjects.extractCompleted,
            extractClients,
          );
          const concurrentExtractHops = hops(concurrentExtracts, 'extract result');

          // Orders of 2 files × 2 texts: four embed jobs, then the package (the ZIP the download hands out).
          const packageJobsBefore = setup.messages.count(JobSubjects.watermarkPackage);
          const packaged = await sequential(setup, packageOrders, () => setup.client.createEmbedPackage(image), JobSubjects.watermarkEmbed, EventSubjects.outputCompleted);
          const packageJobs = setup.messages.count(JobSubjects.watermarkPackage) - packageJobsBefore;
          const packageHops = [
            ...hops(packaged, 'last output stored').slice(0, 4),
            hopOf('last output stored → package job published', packaged.map((t) => delta(t.result, setup.messages.at(JobSubjects.watermarkPackage, t.orderId)))),
            hopOf('package job → ZIP stored (processor)', packaged.map((t) => delta(setup.messages.at(JobSubjects.watermarkPackage, t.orderId), setup.messages.at(EventSubjects.packageCompleted, t.orderId)))),
            hopOf('ZIP stored → complete', packaged.map((t) => delta(setup.messages.at(EventSubjects.packageCompleted, t.orderId), t.completedAt))),
            ...hops(packaged, 'last output stored').slice(4),
          ];
          const zipChecks = await Promise.all(packaged.map((t) => checkZipDownload(setup.client, t.orderId)));
          const zipFailures = zipChecks.filter((problem) => problem !== null);
          if (zipFailures.length > 0) {
            throw new Error(`ZIP downloads wrong: ${zipFailures.join('; ')}`);
          }

          lines.push(
            `Embed orders one at a time (1 image × 1 text, 1-megapixel JPEG of ${image.length} bytes, ${latencyOrders} orders, ${processors} processor replica(s)):`,
            '',
            ...hopTable(embedHops),
            '',
            `Engine alone on the same image (the floor, median of 10 in the benchmark's process): ${embedFloorMs} ms; creation → complete median / floor: ${Math.round((e2e.medianMs / embedFloorMs) * 10) / 10}×`,
            `Webhook order.completed received after complete: median ${stats(webhookLag).medianMs} ms, p95 ${stats(webhookLag).p95Ms} ms (${webhookLag.length}/${embeds.length} received); package jobs published for these one-output orders: ${packages}`,
            `PostgreSQL transactions per order (all services, the benchmark's own statements and the idle rate of ${transactions.idlePerSecond}/s left out): ${transactionsPerOrder}`,
            '',
            'Histogram of creation → complete:',
            '',
            '```',
            ...histogram(endToEnd),
            '```',
            '',
            `Extract orders one at a time (a 2560×1600 JPEG pair: the original and a watermarked copy of ${marked.length} bytes, ${extractOrders} orders):`,
            '',
            ...hopTable(extractHops),
            '',
            `Extraction alone on the same pair (the floor, median of 5): ${extractFloorMs} ms`,
            '',
            `The same extract orders from ${extractClients} concurrent clients (${extractOrders} orders, each client waiting for its order's complete):`,
            '',
            ...hopTable(concurrentExtractHops),
            '',
            `Embed orders of 2 files × 2 texts (4 outputs of the 1-megapixel JPEG, one order at a time, ${packageOrders} orders); the download is the ZIP:`,
            '',
            ...hopTable(packageHops),
            '',
            `Package jobs published for these ${packageOrders} orders: ${packageJobs}; every order's download is \`<orderId>-watermarked.zip\` with its 4 outputs (checked).`,
            '',
          );
          Object.assign(json, { embedHops, endToEnd, webhookLag, packageJobs: packages, transactionsPerOrder, idleTransactionsPerSecond: transactions.idlePerSecond, extractHops, extractClients, concurrentExtractHops, packageHops, packageJobsOfPackageOrders: packageJobs });
        }
        throughputRows.push(await throughput(setup, processors, image, throughputOrders, natsPid));
      } finally {
        await setup.close();
      }
    }
  } finally {
    process.kill(natsPid, 'SIGTERM');
  }
  lines.push(
    `Throughput of 1 MP embed orders (${throughputOrders} orders, 8 clients):`,
    '',
    '| processor replicas | orders completed / minute | processors\' share of the stack\'s CPU time | processors\' cores busy |',
    '|---|---|---|---|',
    ...throughputRows.map((row) => `| ${row.processors} | ${row.perMinute} | ${row.processorCpuShare}% | ${row.processorCores} |`),
    '',
    'CPU per order in the throughput rows (ms, user + system; /proc ticks of 10 ms), by process:',
    '',
    ...cpuGroupTable(throughputRows),
  );
  console.log(lines.join('\n'));
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench-results', 'orders.json'), JSON.stringify({ ...json, throughput: throughputRows }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
