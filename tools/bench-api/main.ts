// Benchmark of the API hot path (issue 19): requests/s and latency of the public API through the whole
// path (authentication, rate limit, RPC to orders, database), next to a bare Express route answering the
// same 404 JSON in the same run, with the CPU each process spent per request.
//   node -r ./tools/register.js tools/bench-api/main.ts [--runs 3] [--duration 8] [--accounts 200]
//        [--order-accounts 100] [--port-base 7500] [--stack <name of a running stack, e.g. dev>] [--profile <dir>]
// Processes: gateway, orders, uploads (creation asks it for upload slots), the PostgreSQL backends of the
// stack's database, the stack's own NATS server.
// Scenarios: GET /api/v3/orders/{id} of complete embed orders (2 files x 2 texts, outputs present), the 404
// path (GET of an order that does not exist), and creation of embed orders (2 files x 2 texts, no upload).
// Keys rotate over enterprise accounts so that no request should meet the rate limit (429s are counted).
import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxWriter } from '@cp/messaging';
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import {
  createDatabase,
  databaseUrl,
  ensurePostgres,
  gatewayUrl,
  newStack,
  portOpen,
  ROOT,
  SERVICE_NAMES,
  ServiceName,
  StackLayout,
  StackProcesses,
  startPrivateNats,
} from '../stack/stack';

type Scenario = 'bare-404' | 'get-404' | 'get-existing' | 'create-embed';

interface Measurement {
  scenario: Scenario;
  run: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  errors: number;
  /** CPU milliseconds per request of each process (user + system), less the same processes' idle background. */
  cpuMsPerRequest: Record<string, number>;
  /** Committed PostgreSQL transactions (≈ statements outside transactions) and rows written, per request. */
  pgTransactionsPerRequest: number;
  pgRowWritesPerRequest: number;
  /** The statements that took most of PostgreSQL's time in the run (empty without pg_stat_statements). */
  topStatements: StatementShare[];
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

interface Target {
  scenario: Scenario;
  connections: number;
  /** Request number → method, path, key index, body. */
  request: (index: number) => { method: 'GET' | 'POST'; path: string; key: number; body?: string };
}

const CLOCK_TICKS_PER_SECOND = 100;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return 0;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** utime + stime of a process in ms, 0 when it is gone. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Processes whose CPU is counted: gateway, orders, the PostgreSQL backends of the stack's database, NATS. */
class CpuProbe {
  constructor(
    private readonly pids: Record<string, number[]>,
    private readonly admin: DataSource,
    private readonly database: string,
  ) {}

  /** Committed transactions and written rows of the database (pg_stat_database), for round trips and writes per request. */
  async databaseCounters(): Promise<{ transactions: number; writes: number }> {
    // Backends report their statistics within a second of going idle.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const rows = await this.admin.query<Array<{ transactions: string; writes: string }>>(
      'SELECT xact_commit::text AS transactions, (tup_inserted + tup_updated + tup_deleted)::text AS writes FROM pg_stat_database WHERE datname = $1',
      [this.database],
    );
    return { transactions: Number(rows[0]?.transactions ?? 0), writes: Number(rows[0]?.writes ?? 0) };
  }

  async sample(): Promise<Map<string, number>> {
    const backends = await this.admin.query<Array<{ pid: number }>>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [this.database]);
    const groups: Record<string, number[]> = { ...this.pids, postgres: backends.map((row) => row.pid) };
    const sample = new Map<string, number>();
    for (const [name, pids] of Object.entries(groups)) {
      for (const pid of pids) {
        sample.set(`${name}:${pid}`, cpuMs(pid));
      }
    }
    sample.set('load-generator:self', cpuMs(process.pid));
    return sample;
  }

  /** CPU ms of each process group between two samples, times `scale`. */
  static totals(before: Map<string, number>, after: Map<string, number>, scale = 1): Record<string, number> {
    const totals: Record<string, number> = {};
    for (const [key, value] of after) {
      const name = key.slice(0, key.indexOf(':'));
      // A PostgreSQL backend that started during the run counts from zero.
      totals[name] = (totals[name] ?? 0) + (value - (before.get(key) ?? 0)) * scale;
    }
    return totals;
  }

  /** CPU ms per request of each process group, less `idle` (the same groups' background CPU, scaled to the run). */
  static perRequest(before: Map<string, number>, after: Map<string, number>, requests: number, idle: Record<string, number> = {}): Record<string, number> {
    const totals = CpuProbe.totals(before, after);
    return Object.fromEntries(
      Object.entries(totals).map(([name, ms]) => [name, Math.round((Math.max(0, ms - (idle[name] ?? 0)) / Math.max(1, requests)) * 1000) / 1000]),
    );
  }
}

/** One statement of the stack's database during a measured run (pg_stat_statements). */
interface StatementShare {
  query: string;
  callsPerRequest: number;
  meanMs: number;
  /** Share of the database's execution time in the run. */
  share: number;
}

/**
 * Where PostgreSQL's time goes per scenario, from pg_stat_statements when the server preloads it
 * (`shared_preload_libraries = 'pg_stat_statements'`); without it the breakdown is left out and said so.
 */
class StatementProbe {
  private constructor(
    private readonly admin: DataSource,
    private readonly database: string,
  ) {}

  static async open(admin: DataSource, database: string): Promise<StatementProbe | null> {
    try {
      await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await admin.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
      return new StatementProbe(admin, database);
    } catch {
      process.stdout.write('pg_stat_statements is not loaded by this PostgreSQL server (shared_preload_libraries): no statement breakdown\n');
      return null;
    }
  }

  async reset(): Promise<void> {
    await this.admin.query('SELECT pg_stat_statements_reset()');
  }

  async top(requests: number, limit = 6): Promise<StatementShare[]> {
    const rows = await this.admin.query<Array<{ query: string; calls: string; total: number }>>(
      `SELECT s.query, s.calls::text AS calls, s.total_exec_time AS total FROM pg_stat_statements s
         JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.total_exec_time DESC`,
      [this.database],
    );
    const all = rows.reduce((sum, row) => sum + row.total, 0);
    return rows.slice(0, limit).map((row) => ({
      query: row.query.replace(/\s+/g, ' ').slice(0, 140),
      callsPerRequest: round2(Number(row.calls) / Math.max(1, requests)),
      meanMs: Math.round((row.total / Math.max(1, Number(row.calls))) * 1000) / 1000,
      share: all > 0 ? Math.round((row.total / all) * 1000) / 10 : 0,
    }));
  }
}

async function drive(
  base: string,
  keys: string[],
  target: Target,
  durationSeconds: number,
  run: number,
  probe: CpuProbe,
  statements: StatementProbe | null = null,
): Promise<Measurement> {
  let counter = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  // What the processes spend with no load at all (timers, outbox polling, other sweeps) over a short idle
  // spell, subtracted from the run below: on a shared, busy machine few requests get through, and without
  // this the background would be booked to them.
  const idleMs = 3000;
  const idleCountersBefore = await probe.databaseCounters();
  const idleBefore = await probe.sample();
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const idleAfter = await probe.sample();
  const idleCountersAfter = await probe.databaseCounters();
  // Scale of the idle spell to the run: CPU samples bracket exactly the spell and the run; the database
  // counters each include one 1.5 s wait for the statistics to arrive.
  const cpuScale = (durationSeconds * 1000) / idleMs;
  const counterScale = (durationSeconds * 1000 + 1500) / (idleMs + 1500);
  const countersBefore = await probe.databaseCounters();
  await statements?.reset();
  const before = await probe.sample();
  let finish: (result: autocannon.Result) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
    url: base,
    connections: target.connections,
    duration: durationSeconds,
    // Fresh request per send: keys rotate, creations get their own idempotency key.
    requests: [
      {
        setupRequest: (request) => {
          const next = target.request(counter);
          counter += 1;
          return {
            ...request,
            method: next.method,
            path: next.path,
            headers: { authorization: `Bearer ${keys[next.key % keys.length]}`, ...(next.body ? { 'content-type': 'application/json' } : {}) },
            body: next.body,
          };
        },
      },
    ],
    },
    (error: Error | null, result: autocannon.Result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await done;
  const after = await probe.sample();
  const countersAfter = await probe.databaseCounters();
  const topStatements = (await statements?.top(latencies.length)) ?? [];
  latencies.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    scenario: target.scenario,
    run,
    connections: target.connections,
    requests: latencies.length,
    requestsPerSecond: Math.round(latencies.length / durationSeconds),
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    p99Ms: round(percentile(latencies, 99)),
    statuses,
    errors: result.errors + result.timeouts,
    cpuMsPerRequest: CpuProbe.perRequest(before, after, latencies.length, CpuProbe.totals(idleBefore, idleAfter, cpuScale)),
    pgTransactionsPerRequest: round2(
      (countersAfter.transactions - countersBefore.transactions - (idleCountersAfter.transactions - idleCountersBefore.transactions) * counterScale) /
        Math.max(1, latencies.length),
    ),
    pgRowWritesPerRequest: round2(
      (countersAfter.writes - countersBefore.writes - (idleCountersAfter.writes - idleCountersBefore.writes) * counterScale) / Math.max(1, latencies.length),
    ),
    topStatements,
  };
}

/** The framework's floor: Express answering the gateway's 404 JSON, in a process of its own. */
async function startBareExpress(port: number): Promise<ChildProcess> {
  const script = `
    const express = require('express');
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.get('/api/v3/orders/:id', (req, res) => res.status(404).json({ code: 'RESOURCE_NOT_FOUND', message: 'Resource not found.' }));
    app.listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: 'inherit' });
  for (let attempt = 0; !(await portOpen('127.0.0.1', port)); attempt += 1) {
    if (attempt > 100) {
      throw new Error('bare Express route did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}

function layoutFor(portBase: number, natsUrl: string, profileDir: string | undefined): StackLayout {
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [portBase + 100 + index]])) as Record<ServiceName, number[]>;
  // Only the services the measured paths (and completing the read orders) need: a lighter start on a busy machine.
  for (const idle of ['ai-detector', 'reports', 'webhooks', 'retention'] as const) {
    ports[idle] = [];
  }
  return {
    name: 'bench-api',
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: 'cp_bench_api',
    natsUrl,
    s3Port: portBase + 90,
    ports: { ...ports, 'api-gateway': [portBase] },
    logLevel: 'warn',
    ...(profileDir ? { extraEnv: { NODE_OPTIONS: `--require ${path.join(ROOT, 'tools/bench-api/cpu-profile.js')}`, BENCH_CPU_PROFILE_DIR: profileDir } } : {}),
  };
}

async function createEmbed(base: string, key: string): Promise<{ orderId: string; uploadUrls: string[] }> {
  const response = await fetch(`${base}/api/v3/orders/wtr-embed`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: embedBody(),
  });
  const body = (await response.json()) as { data: { orderId: string; files: Array<{ uploadUrl: string }> } };
  if (response.status !== 200) {
    throw new Error(`create failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return { orderId: body.data.orderId, uploadUrls: body.data.files.map((file) => file.uploadUrl) };
}

function embedBody(): string {
  const file = (name: string) => ({ fileName: name, watermarks: [{ text: 'recipient one' }, { text: 'recipient two' }] });
  return JSON.stringify({ idempotencyKey: randomUUID(), files: [file('a.jpg'), file('b.jpg')] });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      duration: { type: 'string', default: '8' },
      accounts: { type: 'string', default: '200' },
      'order-accounts': { type: 'string', default: '100' },
      'port-base': { type: 'string', default: '7500' },
      stack: { type: 'string' },
      profile: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const runs = Number(values.runs);
  const duration = Number(values.duration);
  const accountCount = Number(values.accounts);
  const orderAccounts = Math.min(accountCount, Number(values['order-accounts']));
  const portBase = Number(values['port-base']);
  const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensurePostgres(adminUrl);

  let stack: StackProcesses;
  let natsPid = 0;
  let owned = false;
  if (values.stack) {
    stack = StackProcesses.load({ name: values.stack });
  } else {
    let natsPort = portBase + 80;
    while (await portOpen('127.0.0.1', natsPort)) {
      natsPort += 1;
    }
    natsPid = await startPrivateNats(natsPort, path.join(ROOT, 'tmp', 'bench-api-nats', String(Date.now())));
    const profileDir = values.profile ? path.resolve(values.profile) : undefined;
    const layout = layoutFor(portBase, `nats://127.0.0.1:${natsPort}`, profileDir);
    await createDatabase(layout.adminDatabaseUrl, layout.database, true);
    stack = newStack(layout, false);
    owned = true;
    try {
      await stack.startAll();
    } catch (error) {
      // Do not leave half a stack behind.
      await stack.stopAll().catch(() => undefined);
      process.kill(natsPid, 'SIGTERM');
      throw error;
    }
  }
  const layout = stack.state.layout;
  const base = gatewayUrl(layout);
  const bare = await startBareExpress(portBase + 95);
  const open = (url: string, schema: string, entities: Array<new () => unknown>) =>
    new DataSource(serviceDataSourceOptions({ url, schema, entities, migrations: [], applicationName: 'bench-api', poolSize: 2 })).initialize();
  const gateway = await open(databaseUrl(layout), 'gateway', [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES]);
  const orders = await open(databaseUrl(layout), 'orders', []);
  const admin = await open(adminUrl, 'public', []);
  try {
    // Accounts and keys (enterprise: the highest plan limit), with credits for the creations.
    const accounts = new AccountsRepository(gateway, new OutboxWriter(new SystemClock()));
    const stamp = Date.now();
    const keys: string[] = [];
    const accountIds: string[] = [];
    for (let index = 0; index < accountCount; index += 1) {
      const { account } = await accounts.createAccount(`bench-api-${stamp}-${index}`, 'enterprise', null, 1_000_000);
      accountIds.push(account.id);
      keys.push((await accounts.issueKey(account.id, 'live')).key);
    }
    await waitUntil(
      async () => {
        const rows = await orders.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM credit_balance WHERE account_id = ANY($1::bigint[]) AND balance > 0', [accountIds]);
        return rows[0].n === accountCount;
      },
      120_000,
      'credits of the bench accounts',
    );

    // One complete embed order (2 files x 2 texts, small JPEGs) for each of the first accounts.
    const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const orderIds: string[] = [];
    for (let index = 0; index < orderAccounts; index += 1) {
      const created = await createEmbed(base, keys[index]);
      for (const url of created.uploadUrls) {
        const upload = await fetch(url, { method: 'PUT', body: new Uint8Array(image) });
        await upload.arrayBuffer();
      }
      orderIds.push(created.orderId);
    }
    await waitUntil(
      async () => {
        const rows = await orders.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "order" WHERE id = ANY($1::bigint[]) AND status = 'complete'`, [orderIds]);
        return rows[0].n === orderIds.length;
      },
      600_000,
      'the read orders to complete',
    );

    const pid = (key: string) => stack.state.processes[key]?.pid ?? 0;
    const gatewayPids = Object.keys(stack.state.processes)
      .filter((key) => key.startsWith('api-gateway'))
      .map(pid);
    const probe = (extra: Record<string, number[]>) =>
      new CpuProbe({ gateway: gatewayPids, orders: [pid('orders')], uploads: [pid('uploads')], ...(natsPid ? { nats: [natsPid] } : {}), ...extra }, admin, layout.database);
    const targets: Target[] = [
      { scenario: 'bare-404', connections: 32, request: (index) => ({ method: 'GET', path: '/api/v3/orders/987654321', key: index }) },
      { scenario: 'get-404', connections: 32, request: (index) => ({ method: 'GET', path: '/api/v3/orders/987654321', key: index }) },
      { scenario: 'get-existing', connections: 32, request: (index) => ({ method: 'GET', path: `/api/v3/orders/${orderIds[index % orderIds.length]}`, key: index % orderIds.length }) },
      { scenario: 'create-embed', connections: 16, request: (index) => ({ method: 'POST', path: '/api/v3/orders/wtr-embed', key: index, body: embedBody() }) },
    ];
    const statements = await StatementProbe.open(admin, layout.database);
    const selected = values.only ? targets.filter((target) => values.only?.split(',').includes(target.scenario)) : targets;
    const loadBefore = loadavg();
    const measurements: Measurement[] = [];
    for (let run = 1; run <= runs; run += 1) {
      for (const target of selected) {
        const url = target.scenario === 'bare-404' ? `http://127.0.0.1:${portBase + 95}` : base;
        const cpu = target.scenario === 'bare-404' ? new CpuProbe({ bare: [bare.pid ?? 0] }, admin, '-') : probe({});
        // A short warm-up, not measured.
        await drive(url, keys, { ...target, connections: 4 }, 1, 0, cpu);
        const measurement = await drive(url, keys, target, duration, run, cpu, target.scenario === 'bare-404' ? null : statements);
        measurements.push(measurement);
        process.stdout.write(`run ${run} ${target.scenario}: ${measurement.requestsPerSecond} req/s, p99 ${measurement.p99Ms} ms, statuses ${JSON.stringify(measurement.statuses)}\n`);
      }
    }
    const loadAfter = loadavg();

    const bareRps = median(measurements.filter((m) => m.scenario === 'bare-404').map((m) => m.requestsPerSecond));
    const summary = selected.map((target) => {
      const rows = measurements.filter((m) => m.scenario === target.scenario);
      const cpuNames = [...new Set(rows.flatMap((m) => Object.keys(m.cpuMsPerRequest)))];
      const rps = median(rows.map((m) => m.requestsPerSecond));
      return {
        scenario: target.scenario,
        connections: target.connections,
        requestsPerSecond: rps,
        ratioToBare: bareRps ? Math.round((rps / bareRps) * 1000) / 10 : null,
        p50Ms: median(rows.map((m) => m.p50Ms)),
        p95Ms: median(rows.map((m) => m.p95Ms)),
        p99Ms: median(rows.map((m) => m.p99Ms)),
        non2xx: rows.reduce((sum, m) => sum + Object.entries(m.statuses).filter(([status]) => !/^2/.test(status) && status !== '404').reduce((s, [, n]) => s + n, 0), 0),
        pgTransactionsPerRequest: median(rows.map((m) => m.pgTransactionsPerRequest)),
        pgRowWritesPerRequest: median(rows.map((m) => m.pgRowWritesPerRequest)),
        cpuMsPerRequest: Object.fromEntries(cpuNames.map((name) => [name, median(rows.map((m) => m.cpuMsPerRequest[name] ?? 0))])),
      };
    });
    const cpu = (row: (typeof summary)[number], name: string) => (row.cpuMsPerRequest[name] === undefined ? '–' : row.cpuMsPerRequest[name].toFixed(3));
    const lines = [
      `API hot path, medians of ${runs} runs of ${duration} s (autocannon; load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')})`,
      '',
      '| scenario | connections | req/s | % of bare | p50 | p95 | p99 | unexpected statuses | PG xacts/req | PG row writes/req | CPU ms/req gateway | orders | uploads | PostgreSQL | NATS | bare | load generator |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...summary.map(
        (row) =>
          `| ${row.scenario} | ${row.connections} | ${row.requestsPerSecond} | ${row.ratioToBare ?? '–'}% | ${row.p50Ms} ms | ${row.p95Ms} ms | ${row.p99Ms} ms | ${row.non2xx} | ${row.pgTransactionsPerRequest} | ${row.pgRowWritesPerRequest} | ` +
          `${cpu(row, 'gateway')} | ${cpu(row, 'orders')} | ${cpu(row, 'uploads')} | ${cpu(row, 'postgres')} | ${cpu(row, 'nats')} | ${cpu(row, 'bare')} | ${cpu(row, 'load-generator')} |`,
      ),
    ];
    // PostgreSQL's time per scenario, from the last run of each.
    for (const target of selected) {
      const last = measurements.filter((m) => m.scenario === target.scenario).at(-1);
      if (last && last.topStatements.length > 0) {
        lines.push('', `PostgreSQL statements, ${target.scenario} (run ${last.run}): share of execution time, calls per request, mean ms`);
        lines.push(...last.topStatements.map((row) => `  ${row.share}%  ${row.callsPerRequest}/req  ${row.meanMs} ms  ${row.query}`));
      }
    }
    console.log(lines.join('\n'));
    mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(
      path.join(ROOT, 'bench-results', 'api.json'),
      JSON.stringify({ measuredAt: new Date().toISOString(), loadBefore, loadAfter, runs, durationSeconds: duration, summary, measurements }, null, 2),
    );
  } finally {
    bare.kill('SIGTERM');
    await gateway.destroy();
    await orders.destroy();
    await admin.destroy();
    if (owned) {
      // A process may already be gone; that is not a failure of the benchmark.
      await stack.stopAll().catch((error: unknown) => process.stderr.write(`stopping the stack: ${String(error)}\n`));
    }
    if (natsPid) {
      process.kill(natsPid, 'SIGTERM');
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
