// Brings the platform up on one machine: PostgreSQL and NATS (started if down and installed), the
// local S3 server, and the eight services as separate processes. Used by `npm start`, `npm test` and
// the e2e suite. Process ids and each service's environment are kept in a state file so a test can
// kill and restart one service.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';
import { connect as connectNats } from 'nats';
import { Client } from 'pg';

export const ROOT = path.resolve(__dirname, '../..');

export const SERVICE_NAMES = [
  'api-gateway',
  'orders',
  'uploads',
  'watermark-processor',
  'ai-detector',
  'reports',
  'webhooks',
  'retention',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const USES_STORAGE: ReadonlySet<ServiceName> = new Set([
  'orders',
  'uploads',
  'watermark-processor',
  'ai-detector',
  'reports',
  'webhooks',
  'retention',
]);

export interface StackLayout {
  /** Short name used for log and state folders (`dev`, `e2e`). */
  name: string;
  adminDatabaseUrl: string;
  database: string;
  natsUrl: string;
  s3Port: number;
  /** Port of each service process; `api-gateway` may run as several replicas. */
  ports: Record<ServiceName, number[]>;
  logLevel: string;
  clockOffsetFile?: string;
  extraEnv?: Record<string, string>;
  /** A PostgreSQL cluster of the stack's own (chaos runs kill it); absent: the machine's server. */
  privatePostgres?: { port: number; dataDir: string };
}

export interface ProcessRecord {
  key: string;
  pid: number;
  port: number;
  env: Record<string, string>;
  args: string[];
  log: string;
}

export interface StackState {
  layout: StackLayout;
  processes: Record<string, ProcessRecord>;
}

export function stackDir(layout: Pick<StackLayout, 'name'>): string {
  return path.join(ROOT, 'tmp', layout.name);
}

export function databaseUrl(layout: StackLayout): string {
  const url = new URL(layout.adminDatabaseUrl);
  url.pathname = `/${layout.database}`;
  return url.toString();
}

export function gatewayUrl(layout: StackLayout, replica = 0): string {
  return `http://127.0.0.1:${layout.ports['api-gateway'][replica]}`;
}

/**
 * The request `npm start` offers to try with the demo test key: it must work on a fresh database, so it creates a
 * (free, simulated) test order rather than reading one that may not exist. The same idempotency key on every run
 * returns the same order.
 */
export const TRY_REQUEST = {
  method: 'POST',
  path: '/api/v3/orders/wtr-embed',
  body: { idempotencyKey: 'npm-start-try', files: [{ fileName: 'photo.jpg', watermarks: [{ text: 'alice' }] }] },
} as const;

/** `TRY_REQUEST` as a curl line for a shell. */
export function tryCurl(base: string, key: string): string {
  return `curl -s -H "Authorization: Bearer ${key}" -H 'Content-Type: application/json' -d '${JSON.stringify(TRY_REQUEST.body)}' ${base}${TRY_REQUEST.path}`;
}

function log(message: string): void {
  process.stdout.write(`[stack] ${message}\n`);
}

export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/lib/postgresql'])) {
    const candidate = path.join(dir, command);
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  return null;
}

/** PostgreSQL on the admin URL's host and port; started through pg_ctlcluster when installed but down. */
export async function ensurePostgres(adminUrl: string): Promise<void> {
  const url = new URL(adminUrl);
  const port = Number(url.port || 5432);
  if (await portOpen(url.hostname, port)) {
    return;
  }
  const ctl = which('pg_ctlcluster');
  if (!ctl || !existsSync('/etc/postgresql')) {
    throw new Error(
      `PostgreSQL is not reachable at ${url.hostname}:${port} and is not installed here. Install it (Debian: apt-get install postgresql) ` +
        'or point DATABASE_ADMIN_URL at a running server.',
    );
  }
  const version = execFileSync('ls', ['/etc/postgresql']).toString().trim().split('\n')[0];
  log(`starting PostgreSQL ${version}`);
  execFileSync(ctl, ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  await waitFor(() => portOpen(url.hostname, port), 30_000, 'PostgreSQL');
}

/** NATS with JetStream at the URL; the machine's nats-server is started when it is installed but down. */
export async function ensureNats(natsUrl: string): Promise<void> {
  const url = new URL(natsUrl);
  const port = Number(url.port || 4222);
  if (await portOpen(url.hostname, port)) {
    return;
  }
  const binary = which('nats-server');
  if (!binary) {
    throw new Error(
      `NATS is not reachable at ${url.hostname}:${port} and nats-server is not installed. Install it (Debian: apt-get install nats-server) ` +
        'or point NATS_URL at a running server with JetStream enabled.',
    );
  }
  log(`starting nats-server with JetStream on ${url.hostname}:${port}`);
  const storeDir = path.join(ROOT, 'tmp', 'nats', String(port));
  mkdirSync(storeDir, { recursive: true });
  const child = spawn(binary, ['-a', url.hostname, '-p', String(port), '-js', '-sd', storeDir], {
    detached: true,
    stdio: ['ignore', openSync(path.join(storeDir, 'nats.log'), 'a'), openSync(path.join(storeDir, 'nats.log'), 'a')],
  });
  child.unref();
  await waitFor(() => portOpen(url.hostname, port), 15_000, 'nats-server');
}

/**
 * A PostgreSQL cluster of the stack's own on `port` (initdb on first use, data in `dataDir`), started with the
 * machine's PostgreSQL binaries; as root they run as the `postgres` user, which PostgreSQL requires.
 * Returns the postmaster's pid.
 */
export async function startPrivatePostgres(port: number, dataDir: string): Promise<number> {
  const initdb = which('initdb');
  const postgres = which('postgres');
  if (!initdb || !postgres) {
    throw new Error('initdb and postgres are not installed (Debian: apt-get install postgresql)');
  }
  const asRoot = process.getuid?.() === 0;
  const run = (binary: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args]);
  mkdirSync(dataDir, { recursive: true });
  if (asRoot) {
    execFileSync('chown', ['-R', 'postgres:', path.dirname(dataDir)]);
  }
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const [command, args] = run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    execFileSync(command, args, { stdio: 'ignore' });
  }
  const logFile = openSync(path.join(path.dirname(dataDir), `postgres-${port}.log`), 'a');
  const [command, args] = run(postgres, ['-D', dataDir, '-p', String(port), '-k', path.dirname(dataDir), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300']);
  const child = spawn(command, args, { detached: true, stdio: ['ignore', logFile, logFile] });
  child.unref();
  // Open is not ready: after a crash the server recovers first ("the database system is starting up").
  await waitFor(
    async () => {
      const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    60_000,
    `private PostgreSQL on ${port}`,
  );
  // runuser forks the server: its pid is in postmaster.pid.
  return Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** The running postmaster of a private cluster, or null (no pid file, or a stale one after a crash). */
export function privatePostgresPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) {
    return null;
  }
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

/**
 * Stops a private PostgreSQL cluster (fast shutdown) and waits until it is gone, so that a server started next on
 * its port or data folder does not meet one still shutting down.
 */
export async function stopPrivatePostgres(dataDir: string): Promise<void> {
  const pid = privatePostgresPid(dataDir);
  if (!pid) {
    return;
  }
  process.kill(pid, 'SIGINT');
  await waitFor(() => Promise.resolve(privatePostgresPid(dataDir) === null), 60_000, 'the private PostgreSQL to stop');
}

/** A NATS server of the test run's own (fresh JetStream store), so tests never share streams with a dev stack. */
export async function startPrivateNats(port: number, storeDir: string): Promise<number> {
  const binary = which('nats-server');
  if (!binary) {
    throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  }
  mkdirSync(storeDir, { recursive: true });
  const logFile = openSync(path.join(storeDir, 'nats.log'), 'a');
  const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
    detached: true,
    stdio: ['ignore', logFile, logFile],
  });
  child.unref();
  await waitFor(() => portOpen('127.0.0.1', port), 15_000, `private nats-server on ${port}`);
  return child.pid ?? 0;
}

/** One node of a test NATS cluster: its client URL, process and JetStream store (kept across a restart of the node). */
export interface NatsClusterNode {
  name: string;
  clientPort: number;
  clusterPort: number;
  storeDir: string;
  configFile: string;
}

/** The nodes of a cluster of `size` on loopback: client ports from `clientPortBase`, route ports from `routePortBase`. */
export function natsClusterNodes(clientPortBase: number, routePortBase: number, dir: string, size = 3): NatsClusterNode[] {
  return Array.from({ length: size }, (_unused, index) => ({
    name: `n${index + 1}`,
    clientPort: clientPortBase + index,
    clusterPort: routePortBase + index,
    storeDir: path.join(dir, `n${index + 1}`),
    configFile: path.join(dir, `n${index + 1}.conf`),
  }));
}

/** Nodes and pids of a test run's cluster (`{ nodes, pids }`), kept by test-infra; the chaos suite kills and restarts them. */
export function natsClusterFile(runName: string): string {
  return path.join(ROOT, 'tmp', `${runName}-nats-cluster.json`);
}

/** The comma-separated server list the services take as NATS_URL. */
export function natsClusterUrl(nodes: NatsClusterNode[]): string {
  return nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`).join(',');
}

/**
 * Starts (or restarts, same store) one node of a JetStream cluster: a config file with its routes to every node
 * (its own route is ignored by the server), `server_name` (JetStream clustering requires it) and its own store.
 * Returns the pid.
 */
export async function startNatsClusterNode(node: NatsClusterNode, nodes: NatsClusterNode[]): Promise<number> {
  const binary = which('nats-server');
  if (!binary) {
    throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  }
  mkdirSync(node.storeDir, { recursive: true });
  const routes = nodes.filter((other) => other !== node).map((other) => `nats-route://127.0.0.1:${other.clusterPort}`);
  writeFileSync(
    node.configFile,
    [
      `server_name: ${node.name}`,
      'host: 127.0.0.1',
      `port: ${node.clientPort}`,
      `jetstream { store_dir: ${JSON.stringify(node.storeDir)} }`,
      `cluster { name: cp-test, host: 127.0.0.1, port: ${node.clusterPort}, routes: [${routes.join(', ')}] }`,
      '',
    ].join('\n'),
  );
  const logFile = openSync(path.join(node.storeDir, 'nats.log'), 'a');
  const child = spawn(binary, ['-c', node.configFile], { detached: true, stdio: ['ignore', logFile, logFile] });
  child.unref();
  await waitFor(() => portOpen('127.0.0.1', node.clientPort), 15_000, `nats-server ${node.name} on ${node.clientPort}`);
  return child.pid ?? 0;
}

/** Starts every node of a cluster; returns their pids in the nodes' order, once JetStream answers (a meta leader is elected). */
export async function startNatsCluster(nodes: NatsClusterNode[]): Promise<number[]> {
  const pids = await Promise.all(nodes.map((node) => startNatsClusterNode(node, nodes)));
  await waitForJetStream(natsClusterUrl(nodes), 30_000);
  return pids;
}

/** Until JetStream answers an API request through the servers of `url` (one URL or a comma-separated list). */
export async function waitForJetStream(url: string, timeoutMs: number): Promise<void> {
  const nc = await connectNats({ servers: url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  try {
    const jsm = await nc.jetstreamManager({ timeout: 1000, checkAPI: false });
    await waitFor(
      () =>
        jsm.getAccountInfo().then(
          () => true,
          () => false,
        ),
      timeoutMs,
      `JetStream at ${url}`,
    );
  } finally {
    await nc.close();
  }
}

export async function createDatabase(adminUrl: string, name: string, reset: boolean): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    throw new Error(`invalid database name ${name}`);
  }
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    if (reset) {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Each service process's internal metrics port: its HTTP port + 50, inside the stack's own range of ports
 * (`npm start`: 3050 and 3151…; e2e: base+50, base+60 and base+150…), so replicas and parallel stacks never share one.
 */
export function metricsPortOf(port: number): number {
  return port + 50;
}

function serviceEnv(layout: StackLayout, service: ServiceName, port: number): Record<string, string> {
  const s3 = `http://127.0.0.1:${layout.s3Port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    PORT: String(port),
    HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPortOf(port)),
    METRICS_HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl(layout),
    NATS_URL: layout.natsUrl,
    LOG_LEVEL: layout.logLevel,
    ...(layout.clockOffsetFile ? { CLOCK_OFFSET_FILE: layout.clockOffsetFile } : {}),
    ...(layout.extraEnv ?? {}),
  };
  // The gateway relays presigned reads of anti-AI results (no storage credentials).
  if (USES_STORAGE.has(service) || service === 'api-gateway') {
    Object.assign(env, { S3_ENDPOINT: s3, S3_PUBLIC_ENDPOINT: s3 });
  }
  // Client-facing URLs: test upload sinks (gateway, uploads) and anti-AI result URLs (orders, webhooks).
  if (service === 'api-gateway' || service === 'uploads' || service === 'orders' || service === 'webhooks') {
    env.PUBLIC_BASE_URL = `http://127.0.0.1:${layout.ports['api-gateway'][0]}`;
  }
  return env;
}

function spawnRecorded(record: Omit<ProcessRecord, 'pid'>, detached: boolean): ChildProcess {
  const out = openSync(record.log, 'a');
  const child = spawn(process.execPath, record.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...record.env },
    stdio: ['ignore', out, out],
    detached,
  });
  if (detached) {
    child.unref();
  }
  return child;
}

export async function waitReady(port: number, timeoutMs: number, child?: ChildProcess, what = `port ${port}`): Promise<void> {
  let exited: number | null = null;
  child?.once('exit', (code) => {
    exited = code ?? -1;
  });
  await waitFor(
    async () => {
      if (exited !== null) {
        throw new Error(`${what} exited with code ${exited} before it was ready`);
      }
      try {
        const response = await fetch(`http://127.0.0.1:${port}/ready`);
        return response.status === 200;
      } catch (error) {
        // fetch refuses the Fetch standard's blocked ports (4190, 6000, …) for good: say so at once.
        if (error instanceof Error && error.cause instanceof Error && error.cause.message === 'bad port') {
          throw new Error(`${what}: port ${port} is on fetch's blocked-port list; choose another`);
        }
        return false;
      }
    },
    timeoutMs,
    `${what} to be ready`,
  );
}

/** Starts (or restarts) the processes of a stack and keeps their records in a state file. */
/**
 * V8 flags per service, as the Helm chart sets them (`NODE_OPTIONS` in values.yaml). The services on the API's
 * request path get a 64 MB young generation: a request allocates many short-lived objects, and with the 16 MB
 * default the gateway's scavenger took about a tenth of its CPU; measured with tools/bench-api (issue 19): +8%
 * requests/s on the existing-order read (gateway), creation p99 from about 107 to 94 ms (orders and uploads too).
 */
const YOUNG_GENERATION_64MB = ['--max-semi-space-size=64'];
const SERVICE_NODE_FLAGS: Partial<Record<ServiceName, string[]>> = { 'api-gateway': YOUNG_GENERATION_64MB, orders: YOUNG_GENERATION_64MB, uploads: YOUNG_GENERATION_64MB };

export class StackProcesses {
  readonly children = new Map<string, ChildProcess>();

  constructor(
    readonly state: StackState,
    private readonly detached: boolean,
  ) {}

  static stateFile(layout: Pick<StackLayout, 'name'>): string {
    return path.join(stackDir(layout), 'stack.json');
  }

  static load(layout: Pick<StackLayout, 'name'>): StackProcesses {
    const state = JSON.parse(readFileSync(StackProcesses.stateFile(layout), 'utf8')) as StackState;
    return new StackProcesses(state, true);
  }

  save(): void {
    writeFileSync(StackProcesses.stateFile(this.state.layout), JSON.stringify(this.state, null, 2));
  }

  async startAll(): Promise<void> {
    const layout = this.state.layout;
    mkdirSync(path.join(stackDir(layout), 'logs'), { recursive: true });
    await this.launch({
      key: 's3',
      port: layout.s3Port,
      env: {
        S3_PORT: String(layout.s3Port),
        S3_DIRECTORY: path.join(stackDir(layout), 's3'),
        NATS_URL: layout.natsUrl,
        // The bridge ensures the streams too: at the services' replication and size bounds, never changing them back.
        ...(layout.extraEnv?.NATS_STREAM_REPLICAS ? { NATS_STREAM_REPLICAS: layout.extraEnv.NATS_STREAM_REPLICAS } : {}),
        ...(layout.extraEnv?.NATS_STREAM_MAX_MIB ? { NATS_STREAM_MAX_MIB: layout.extraEnv.NATS_STREAM_MAX_MIB } : {}),
      },
      args: ['-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'tools/stack/s3-server.ts')],
      log: path.join(stackDir(layout), 'logs', 's3.log'),
    });
    await waitFor(() => portOpen('127.0.0.1', layout.s3Port), 30_000, 'the S3 server');
    // The gateway first: it owns the accounts schema the admin CLI writes to.
    const launches: Array<Promise<void>> = [];
    for (const service of SERVICE_NAMES) {
      layout.ports[service].forEach((port, replica) => {
        const key = replica === 0 ? service : `${service}#${replica}`;
        launches.push(this.startService(service, key, port));
      });
    }
    await Promise.all(launches);
    this.save();
  }

  async startService(service: ServiceName, key: string = service, port?: number): Promise<void> {
    const layout = this.state.layout;
    const servicePort = port ?? this.state.processes[key].port;
    const record = {
      key,
      port: servicePort,
      env: serviceEnv(layout, service, servicePort),
      args: [...(SERVICE_NODE_FLAGS[service] ?? []), '-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'apps', service, 'src', 'main.ts')],
      log: path.join(stackDir(layout), 'logs', `${key.replace('#', '-')}.log`),
    };
    const child = await this.launch(record);
    await waitReady(servicePort, 90_000, child, key);
    this.save();
  }

  private async launch(record: Omit<ProcessRecord, 'pid'>): Promise<ChildProcess> {
    const child = spawnRecorded(record, this.detached);
    if (!child.pid) {
      throw new Error(`could not start ${record.key}`);
    }
    this.children.set(record.key, child);
    this.state.processes[record.key] = { ...record, pid: child.pid };
    return child;
  }

  /** Sends a signal to one process and waits until it is gone. */
  async stop(key: string, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    const record = this.state.processes[key];
    if (!record) {
      return;
    }
    const pid = record.pid;
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!alive()) {
      this.killLeftovers(pid);
      return;
    }
    process.kill(pid, signal);
    try {
      await waitFor(async () => !alive(), timeoutMs, `${key} to stop`);
    } catch {
      process.kill(pid, 'SIGKILL');
      await waitFor(async () => !alive(), 5000, `${key} to be killed`);
    }
    this.killLeftovers(pid);
  }

  /**
   * What a stopped process leaves in its process group (a detached one leads its own): a service killed with -9
   * leaves its helpers (ExifTool's perl with `-stay_open`, which waits for input for ever; the PDF renderer) behind,
   * where a container's end would take them with it.
   */
  private killLeftovers(pid: number): void {
    if (!this.detached) {
      return;
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // nothing left in the group
    }
  }

  async stopAll(): Promise<void> {
    // Services first (they drain NATS and close their pools), then the S3 server.
    const keys = Object.keys(this.state.processes).filter((key) => key !== 's3');
    await Promise.all(keys.map((key) => this.stop(key)));
    await this.stop('s3');
  }
}

export function newStack(layout: StackLayout, detached: boolean): StackProcesses {
  mkdirSync(stackDir(layout), { recursive: true });
  return new StackProcesses({ layout, processes: {} }, detached);
}
