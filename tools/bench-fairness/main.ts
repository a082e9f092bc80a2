// Benchmark of per-account shares of the work queues (QUEUED_JOBS_PER_ACCOUNT), end to end on localhost, all services
// as separate processes, one watermark-processor of one slot: a "bulk" account sends one embed order of many outputs,
// and right after its upload a "small" account sends single-output embed orders one at a time. Measured, from the
// orders service's own `created_at`/`completed_at`: each small order's creation → `complete`, and the bulk order's
// creation → `complete` (what the share costs the account that sends a lot). Once with the share as good as off
// (QUEUED_JOBS_PER_ACCOUNT=10000: first in, first out, as before) and once with the default (4), same inputs.
//   node -r ./tools/register.js tools/bench-fairness/main.ts [--bulk-files 10] [--texts 10] [--small-orders 5] [--port-base 8400]
import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { createDatabase, databaseUrl, ensurePostgres, gatewayUrl, newStack, portOpen, ROOT, SERVICE_NAMES, ServiceName, StackLayout, startPrivateNats } from '../stack/stack';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  share: number;
  /** Creation → `complete` of each small order, in seconds. */
  smallSeconds: number[];
  bulkOutputs: number;
  bulkSeconds: number;
}

class Client {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  /** An embed order of `files` copies of `image`, each with `texts` recipients; returns its id once every file is uploaded. */
  async embed(image: Buffer, files: number, texts: number): Promise<string> {
    const body = {
      idempotencyKey: randomUUID(),
      files: Array.from({ length: files }, (_, file) => ({
        fileName: `photo-${file + 1}.jpg`,
        watermarks: Array.from({ length: texts }, (_, text) => ({ text: `recipient ${file + 1}-${text + 1}` })),
      })),
    };
    const response = await fetch(`${this.base}/api/v3/orders/wtr-embed`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const parsed = (await response.json()) as { data: { orderId: string; files: Array<{ uploadUrl: string }> } };
    if (response.status !== 200) {
      throw new Error(`create failed: ${response.status} ${JSON.stringify(parsed)}`);
    }
    for (const file of parsed.data.files) {
      const upload = await fetch(file.uploadUrl, { method: 'PUT', body: new Uint8Array(image) });
      await upload.arrayBuffer();
    }
    return parsed.data.orderId;
  }
}

/** Creation → `complete` of each order in seconds (the orders service's clock), once all are complete. */
async function completedSeconds(orders: DataSource, ids: string[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await orders.query<Array<{ id: string; status: string; seconds: number | null }>>(
      `SELECT id::text, status, EXTRACT(EPOCH FROM completed_at - created_at)::float8 AS seconds FROM "order" WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    if (rows.some((row) => row.status === 'failed')) {
      throw new Error(`an order failed: ${JSON.stringify(rows)}`);
    }
    if (rows.length === ids.length && rows.every((row) => row.status === 'complete')) {
      const byId = new Map(rows.map((row) => [row.id, Math.round(Number(row.seconds) * 10) / 10]));
      return ids.map((id) => byId.get(id) ?? NaN);
    }
    if (Date.now() > deadline) {
      throw new Error(`orders not complete in time: ${JSON.stringify(rows.map((row) => row.status))}`);
    }
    await pause(200);
  }
}

async function run(share: number, natsUrl: string, portBase: number, image: Buffer, options: { bulkFiles: number; texts: number; smallOrders: number }): Promise<Row> {
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [portBase + 100 + index]])) as Record<ServiceName, number[]>;
  const layout: StackLayout = {
    name: `bench-fairness-${portBase}-${share}`,
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: `cp_bench_fairness_${portBase}_${share}`,
    natsUrl,
    s3Port: portBase + 900,
    ports: { ...ports, 'api-gateway': [portBase] },
    logLevel: 'warn',
    extraEnv: { QUEUED_JOBS_PER_ACCOUNT: String(share), WATERMARK_CONCURRENCY: '1' },
  };
  await createDatabase(layout.adminDatabaseUrl, layout.database, true);
  const stack = newStack(layout, false);
  try {
    await stack.startAll();
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    const open = (schema: string, entities: Function[]) =>
      new DataSource(serviceDataSourceOptions({ url: databaseUrl(layout), schema, entities, migrations: [], applicationName: 'bench', poolSize: 2 })).initialize();
    const gateway = await open('gateway', [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES]);
    const orders = await open('orders', []);
    try {
      const accounts = new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
      const client = async (name: string): Promise<{ client: Client; accountId: string }> => {
        const { account } = await accounts.createAccount(`${name}-${Date.now()}`, 'enterprise', `${name}-${Date.now()}@example.com`, 100_000);
        return { client: new Client(gatewayUrl(layout), (await accounts.issueKey(account.id, 'live')).key), accountId: account.id };
      };
      const bulk = await client('bulk');
      const small = await client('small');
      // The orders service learns each account (and its credits) from the creation event.
      for (let attempt = 0; ; attempt += 1) {
        const rows = await orders.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM credit_balance WHERE account_id = ANY($1::bigint[])', [[bulk.accountId, small.accountId]]);
        if (rows[0]?.n === 2) {
          break;
        }
        if (attempt > 200) {
          throw new Error('the accounts did not reach the orders service');
        }
        await pause(100);
      }
      // Warm-up: the first order pays for lazy initialisation in every service.
      await completedSeconds(orders, [await small.client.embed(image, 1, 1)], 120_000);

      const bulkId = await bulk.client.embed(image, options.bulkFiles, options.texts);
      const smallIds: string[] = [];
      for (let index = 0; index < options.smallOrders; index++) {
        await pause(1000);
        const id = await small.client.embed(image, 1, 1);
        smallIds.push(id);
        // One at a time, as a small client would: the next once this one is complete.
        await completedSeconds(orders, [id], 30 * 60_000);
      }
      const [bulkSeconds] = await completedSeconds(orders, [bulkId], 60 * 60_000);
      const smallSeconds = await completedSeconds(orders, smallIds, 1000);
      return { share, smallSeconds, bulkOutputs: options.bulkFiles * options.texts, bulkSeconds };
    } finally {
      await gateway.destroy();
      await orders.destroy();
    }
  } finally {
    await stack.stopAll();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'bulk-files': { type: 'string', default: '10' },
      texts: { type: 'string', default: '10' },
      'small-orders': { type: 'string', default: '5' },
      'port-base': { type: 'string', default: '8400' },
    },
  });
  const options = { bulkFiles: Number(values['bulk-files']), texts: Number(values.texts), smallOrders: Number(values['small-orders']) };
  const portBase = Number(values['port-base']);
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensurePostgres(adminUrl);
  // A 4-megapixel photo-like JPEG (smooth gradients and noise), made here: no corpus file needed.
  const width = 2400;
  const height = 1600;
  const noise = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).blur(2).raw().toBuffer();
  const image = await sharp(noise, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  let natsPort = portBase + 890;
  while (await portOpen('127.0.0.1', natsPort)) {
    natsPort += 1;
  }
  const natsPid = await startPrivateNats(natsPort, path.join(ROOT, 'tmp', 'bench-fairness-nats', String(Date.now())));
  const rows: Row[] = [];
  try {
    for (const share of [10_000, 4]) {
      rows.push(await run(share, `nats://127.0.0.1:${natsPort}`, portBase, image, options));
    }
  } finally {
    process.kill(natsPid, 'SIGTERM');
  }
  const seconds = (values: number[]): string => values.map((value) => value.toFixed(1)).join(', ');
  const lines = [
    `Per-account shares of the work queues: one processor slot, a ${width}×${height} JPEG; a bulk account's embed order of ` +
      `${options.bulkFiles} files × ${options.texts} texts, then ${options.smallOrders} single-output orders of a small account, one at a time (creation → complete, s):`,
    '',
    '| QUEUED_JOBS_PER_ACCOUNT | small orders, each | bulk order |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.share === 10_000 ? '10000 (as before: first in, first out)' : row.share} | ${seconds(row.smallSeconds)} | ${row.bulkSeconds.toFixed(1)} (${row.bulkOutputs} outputs) |`),
  ];
  console.log(lines.join('\n'));
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench-results', 'fairness.json'), JSON.stringify({ measuredAt: new Date().toISOString(), width, height, ...options, rows }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
