// Benchmark of embed orders end to end on localhost (issue 4): orders of 1 image x 1 text created,
// uploaded and completed through the public API, against all services as separate processes.
// Reports median and p95 time from creation to `complete` for a 1-megapixel JPEG, and throughput
// (orders completed per minute) with 1 and with 2 watermark-processor replicas.
//   node -r ./tools/register.js tools/bench-orders/main.ts [--orders 40] [--latency-orders 20]
import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { createDatabase, databaseUrl, ensurePostgres, gatewayUrl, newStack, portOpen, ROOT, SERVICE_NAMES, ServiceName, startPrivateNats, StackLayout } from '../stack/stack';

interface Row {
  processors: number;
  latencyOrders: number;
  medianMs: number;
  p95Ms: number;
  throughputOrders: number;
  throughputPerMinute: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function layoutFor(processors: number, natsUrl: string): Promise<StackLayout> {
  // Not 6000: fetch refuses the X11 port (a "bad port" of the fetch standard).
  const base = 7000;
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [base + 100 + index]])) as Record<ServiceName, number[]>;
  ports['watermark-processor'] = Array.from({ length: processors }, (_, replica) => base + 200 + replica);
  return {
    name: `bench-${processors}`,
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: `cp_bench_${processors}`,
    natsUrl,
    s3Port: base + 900,
    ports: { ...ports, 'api-gateway': [base] },
    logLevel: 'warn',
  };
}

class Client {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  async createAndUpload(image: Buffer): Promise<string> {
    const response = await fetch(`${this.base}/api/v3/orders/wtr-embed`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ idempotencyKey: randomUUID(), files: [{ fileName: 'photo.jpg', watermarks: [{ text: 'bench recipient' }] }] }),
    });
    const body = (await response.json()) as { data: { orderId: string; files: Array<{ uploadUrl: string }> } };
    if (response.status !== 200) {
      throw new Error(`create failed: ${response.status} ${JSON.stringify(body)}`);
    }
    const upload = await fetch(body.data.files[0].uploadUrl, { method: 'PUT', body: new Uint8Array(image) });
    await upload.arrayBuffer();
    return body.data.orderId;
  }
}

/** Server-side creation → completion times (the orders service's own timestamps). */
async function waitCompleted(orders: DataSource, ids: string[], timeoutMs: number): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await orders.query<Array<{ id: string; status: string; ms: number | null }>>(
      `SELECT id::text, status, (EXTRACT(EPOCH FROM (completed_at - created_at)) * 1000)::float AS ms FROM "order" WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    const failed = rows.filter((row) => row.status === 'failed');
    if (failed.length > 0) {
      throw new Error(`orders failed: ${failed.map((row) => row.id).join(', ')}`);
    }
    const done = rows.filter((row) => row.status === 'complete');
    if (done.length === ids.length) {
      return new Map(done.map((row) => [row.id, row.ms ?? 0]));
    }
    if (Date.now() > deadline) {
      throw new Error(`only ${done.length}/${ids.length} orders completed in time`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function run(processors: number, natsUrl: string, image: Buffer, latencyOrders: number, throughputOrders: number): Promise<Row> {
  const layout = await layoutFor(processors, natsUrl);
  await createDatabase(layout.adminDatabaseUrl, layout.database, true);
  const stack = newStack(layout, false);
  try {
    await stack.startAll();
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    const open = (schema: string, entities: Function[]) =>
      new DataSource(serviceDataSourceOptions({ url: databaseUrl(layout), schema, entities, migrations: [], applicationName: 'bench', poolSize: 2 })).initialize();
    const gateway = await open('gateway', [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES]);
    const orders = await open('orders', []);
    const accounts = new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
    const account = await accounts.createAccount(`bench-${Date.now()}`, 'enterprise', null, 100_000);
    const key = (await accounts.issueKey(account.id, 'live')).key;
    const client = new Client(gatewayUrl(layout), key);
    for (let attempt = 0; ; attempt += 1) {
      const rows = await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [account.id]);
      if (rows[0]?.balance === 100_000) {
        break;
      }
      if (attempt > 200) {
        throw new Error('credits did not arrive');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Warm-up: the first order pays for lazy initialisation in every service.
    await waitCompleted(orders, [await client.createAndUpload(image)], 60_000);

    const latencies: number[] = [];
    for (let index = 0; index < latencyOrders; index += 1) {
      const id = await client.createAndUpload(image);
      latencies.push((await waitCompleted(orders, [id], 60_000)).get(id) ?? 0);
    }

    const started = Date.now();
    const ids: string[] = [];
    const queue = Array.from({ length: throughputOrders }, (_, index) => index);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (queue.shift() !== undefined) {
          ids.push(await client.createAndUpload(image));
        }
      }),
    );
    await waitCompleted(orders, ids, 600_000);
    const elapsedMs = Date.now() - started;
    await gateway.destroy();
    await orders.destroy();
    return {
      processors,
      latencyOrders,
      medianMs: Math.round(percentile(latencies, 50)),
      p95Ms: Math.round(percentile(latencies, 95)),
      throughputOrders,
      throughputPerMinute: Math.round((throughputOrders / elapsedMs) * 60_000 * 10) / 10,
    };
  } finally {
    await stack.stopAll();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { orders: { type: 'string', default: '40' }, 'latency-orders': { type: 'string', default: '20' } } });
  const throughputOrders = Number(values.orders);
  const latencyOrders = Number(values['latency-orders']);
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensurePostgres(adminUrl);
  let natsPort = 4290;
  while (await portOpen('127.0.0.1', natsPort)) {
    natsPort += 1;
  }
  const natsPid = await startPrivateNats(natsPort, path.join(ROOT, 'tmp', 'bench-nats', String(Date.now())));
  // A 1-megapixel JPEG (1250 x 800) made from a corpus photo.
  const image = await sharp(path.resolve(ROOT, '..', 'shared', 'corpus', 'photos', 'kite-2560x1600.jpg')).resize(1250, 800).jpeg({ quality: 90 }).toBuffer();
  const rows: Row[] = [];
  try {
    for (const processors of [1, 2]) {
      rows.push(await run(processors, `nats://127.0.0.1:${natsPort}`, image, latencyOrders, throughputOrders));
    }
  } finally {
    process.kill(natsPid, 'SIGTERM');
  }
  const lines = [
    `Embed orders end to end (1 image x 1 text, 1-megapixel JPEG of ${image.length} bytes, localhost, ${process.env.HOSTNAME ?? 'this machine'})`,
    '',
    '| processor replicas | latency orders | median creation→complete | p95 | throughput orders | orders completed / minute |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.processors} | ${row.latencyOrders} | ${row.medianMs} ms | ${row.p95Ms} ms | ${row.throughputOrders} | ${row.throughputPerMinute} |`),
  ];
  console.log(lines.join('\n'));
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench-results', 'orders.json'), JSON.stringify({ measuredAt: new Date().toISOString(), imageBytes: image.length, rows }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
