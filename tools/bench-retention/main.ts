// Benchmark of the retention sweep (issue 9): N orders whose retention period ended are seeded in a
// database of its own (`cp_bench_retention`: orders and retention schemas, their real migrations), then
// the real SweepExpiredOrdersUseCase drains them through the real orders ExpireOrdersUseCase (called
// in-process instead of over NATS). Storage is a counting stub that lists two objects per order and
// stores nothing, so the numbers are the sweep's own cost (database work, batching, memory); a real
// S3 adds its per-request latency, spread over RETENTION_DELETE_CONCURRENCY lanes.
// Touches no other stack: no NATS, no S3, no service processes.
//   node -r ./tools/register.js tools/bench-retention/main.ts [--orders 10000,100000] [--batch 200]
import { SystemClock } from '@cp/clock';
import { StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { ExpireOrdersResult } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
// The benchmark drives the services' own use cases in-process (no service process, no NATS), so it
// imports them from the apps directly.
/* eslint-disable @nx/enforce-module-boundaries */
import { CreditLedgerRepository } from '../../apps/orders/src/credits/credit-ledger.repository';
import { ORDERS_ENTITIES } from '../../apps/orders/src/database/entities';
import { ORDERS_MIGRATIONS } from '../../apps/orders/src/database/migrations';
import { ExpireOrdersUseCase } from '../../apps/orders/src/expiry/expire-orders.use-case';
import { OrdersRepository } from '../../apps/orders/src/orders/orders.repository';
import { RETENTION_ENTITIES } from '../../apps/retention/src/database/entities';
import { RETENTION_MIGRATIONS } from '../../apps/retention/src/database/migrations';
import { OrderExpiryRepository } from '../../apps/retention/src/schedule/order-expiry.repository';
import { OrderObjects } from '../../apps/retention/src/sweep/order-objects.service';
import { OrdersExpiryPort } from '../../apps/retention/src/sweep/orders-expiry.client';
import { RetentionEndEventsRepository } from '../../apps/retention/src/sweep/retention-end-events.repository';
import { SweepExpiredOrdersUseCase } from '../../apps/retention/src/sweep/sweep-expired-orders.use-case';
/* eslint-enable @nx/enforce-module-boundaries */
import { createDatabase, ensurePostgres, ROOT } from '../stack/stack';

const DATABASE = 'cp_bench_retention';

/** Lists two objects under every order prefix, deletes nothing, keeps nothing: constant memory. */
class CountingStorage extends ObjectStorage {
  lists = 0;
  removed = 0;

  override listKeys(_bucket: string, prefix: string): Promise<string[]> {
    this.lists += 1;
    return Promise.resolve([`${prefix}inputs/1/a.png`, `${prefix}outputs/1-1/a-watermarked-1-1.png`]);
  }

  override removeEach(_bucket: string, keys: string[]): Promise<string[]> {
    this.removed += keys.length;
    return Promise.resolve([]);
  }
}

/** The orders service's use case, in-process (the service calls it over NATS request/reply). */
class InProcessOrders extends OrdersExpiryPort {
  constructor(private readonly useCase: ExpireOrdersUseCase) {
    super();
  }

  expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    return this.useCase.execute({ orderIds });
  }
}

interface Row {
  orders: number;
  batchSize: number;
  seconds: number;
  ordersPerSecond: number;
  heapBeforeMb: number;
  peakHeapMb: number;
  peakRssMb: number;
  storageLists: number;
  objectsDeleted: number;
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function seed(orders: DataSource, retention: DataSource, count: number): Promise<void> {
  await orders.query('TRUNCATE "order", order_output, outbox_event RESTART IDENTITY');
  await retention.query('TRUNCATE order_expiry');
  const expiresAt = new Date(Date.now() - 3600_000);
  // In chunks so seeding itself stays small; ids come from the orders sequence like real orders.
  for (let done = 0; done < count; done += 20_000) {
    const chunk = Math.min(20_000, count - done);
    await orders.query(
      `WITH o AS (
         INSERT INTO "order" (account_id, mode, type, api_version, status, expires_at, created_at, package_key)
         SELECT 1 + (g % 500), 'live', 'watermarkEmbed', 'v3', 'complete', $1, $1::timestamptz - interval '30 days', 'key'
           FROM generate_series(1, $2) AS g RETURNING id, account_id)
       INSERT INTO order_output (file_id, order_id, input_file_id, input_position, output_index, watermark_text, status, media_kind, object_key)
       SELECT id || '-1', id, id, 0, 0, 'text', 'completed', 'image', account_id || '/' || id || '/outputs/' || id || '-1/a.png' FROM o`,
      [expiresAt, chunk],
    );
  }
  // Both schemas live in one database: copy the schedule straight from the orders rows.
  await retention.query(
    `INSERT INTO retention.order_expiry (order_id, account_id, expires_at, phase, next_check_at)
     SELECT id, account_id, expires_at, 'scheduled', expires_at FROM orders."order"`,
  );
  await orders.query('VACUUM ANALYZE "order"');
  await orders.query('VACUUM ANALYZE order_output');
  await retention.query('VACUUM ANALYZE order_expiry');
}

async function run(orders: DataSource, retention: DataSource, count: number, batchSize: number): Promise<Row> {
  await seed(orders, retention, count);
  const clock = new SystemClock();
  const storage = new CountingStorage(toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x' })));
  const expireOrders = new ExpireOrdersUseCase(
    new TransactionRepository(orders),
    new OrdersRepository(orders, new OutboxWriter(clock), new CreditLedgerRepository()),
    clock,
  );
  const sweep = new SweepExpiredOrdersUseCase(
    new TransactionRepository(retention),
    { retention: { sweepIntervalMs: 1000, batchSize, deleteConcurrency: 8, recheckMs: 3600_000, leaseMs: 900_000, failedOrderGraceMs: 24 * 3600_000 } },
    new OrderExpiryRepository(),
    new InProcessOrders(expireOrders),
    new OrderObjects(storage),
    clock,
    new RetentionEndEventsRepository(new OutboxWriter(clock)),
  );
  global.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peakHeap = Math.max(peakHeap, usage.heapUsed);
    peakRss = Math.max(peakRss, usage.rss);
  }, 25);
  const started = process.hrtime.bigint();
  let handled: number;
  let total = 0;
  do {
    handled = await sweep.execute();
    total += handled;
  } while (handled > 0);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  const [{ n: expired }] = await orders.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "order" WHERE status = 'expired' AND package_key IS NULL`);
  if (total !== count || expired !== count) {
    throw new Error(`swept ${total} and expired ${expired} of ${count} orders`);
  }
  return {
    orders: count,
    batchSize,
    seconds: Math.round(seconds * 100) / 100,
    ordersPerSecond: Math.round(count / seconds),
    heapBeforeMb: mb(before.heapUsed),
    peakHeapMb: mb(peakHeap),
    peakRssMb: mb(peakRss),
    storageLists: storage.lists,
    objectsDeleted: storage.removed,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { orders: { type: 'string', default: '10000,100000' }, batch: { type: 'string', default: '200' } } });
  const counts = values.orders.split(',').map(Number);
  const batchSize = Number(values.batch);
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensurePostgres(adminUrl);
  await createDatabase(adminUrl, DATABASE, true);
  const url = new URL(adminUrl);
  url.pathname = `/${DATABASE}`;
  const open = (schema: string, entities: Parameters<typeof openServiceDatabase>[0]['entities'], migrations: Parameters<typeof openServiceDatabase>[0]['migrations']) =>
    openServiceDatabase({ url: url.toString(), schema, entities: [...(entities as []), ...MESSAGING_ENTITIES], migrations, applicationName: 'bench-retention', poolSize: 4 });
  const orders = await open('orders', ORDERS_ENTITIES, ORDERS_MIGRATIONS);
  const retention = await open('retention', RETENTION_ENTITIES, RETENTION_MIGRATIONS);
  const rows: Row[] = [];
  try {
    for (const count of counts) {
      rows.push(await run(orders, retention, count, batchSize));
    }
  } finally {
    await Promise.all([orders.destroy(), retention.destroy()]);
  }
  const header = ['orders', 'batch', 'seconds', 'orders/s', 'heap before MB', 'peak heap MB', 'peak RSS MB', 'storage lists', 'objects deleted'];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map(
      (row) =>
        `| ${row.orders} | ${row.batchSize} | ${row.seconds} | ${row.ordersPerSecond} | ${row.heapBeforeMb} | ${row.peakHeapMb} | ${row.peakRssMb} | ${row.storageLists} | ${row.objectsDeleted} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(
    path.join(ROOT, 'bench-results', 'retention.json'),
    JSON.stringify({ measuredAt: new Date().toISOString(), database: DATABASE, storage: 'counting stub (2 objects per order, no I/O)', rows }, null, 2),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
