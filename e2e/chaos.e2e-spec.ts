// Fault injection on the e2e stack's own processes: two gateway replicas and two processor replicas
// serve a steady load (2-output image embeds, an image extract, a PDF embed and a report request per
// fault, every terminal order announced by webhook to a receiver that fails now and then) while one part
// is killed (kill -9) or frozen (SIGSTOP) and brought back. After each fault: every accepted order
// terminal, every requested report completed, nothing lost or duplicated, the credit ledger consistent
// with balances and with each order's charge, every order's webhook event delivered (200) under one
// eventId with one body, the time to recover, and the time until an order accepted after the fault completes (orders
// move again). Prints the fault table and writes bench-results/chaos-*.json.
// On the test run's three-node JetStream cluster (streams at three copies, as in production) it also kills the
// node leading the JOBS stream (both runs), the one leading EVENTS, and keeps a node down for the rest of the run.
//   npm test: the short list (CHAOS_FULL unset). npm run chaos: every fault, more orders per fault.
import { ReportView, Streams, WatermarkOrderView } from '@cp/contracts';
import { readZip } from '@cp/testing';
import { natsServers } from '@cp/messaging';
import { connect, headers as natsHeaders, StringCodec } from 'nats';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
// The private NATS of the run is restarted here the way test-infra started it.
// eslint-disable-next-line @nx/enforce-module-boundaries
import {
  natsClusterFile,
  NatsClusterNode,
  natsClusterUrl,
  portOpen,
  privatePostgresPid,
  ROOT,
  startNatsClusterNode,
  startPrivateNats,
  startPrivatePostgres,
  waitForJetStream,
} from '../tools/stack/stack';
import { api, createAccount, layout, openSchema, stack, TestAccount } from './support/e2e-stack';
import { corpusFile, embedBody, jobConsumersText, timelineText } from './support/orders';
import { ReceivedRequest, WebhookReceiver } from './support/webhook-receiver';

const FULL = process.env.CHAOS_FULL === '1';
const ORDERS_PER_FAULT = FULL ? 8 : 4;
const RECOVERY_GOAL_MS = 30_000;
const SETTLE_TIMEOUT_MS = 120_000;
const SECOND_PROCESSOR = 'watermark-processor#1';
/** PostgreSQL outage of the outage row (issue 29: "down for 3 minutes under load"), and the orders it carries. */
const PG_OUTAGE_MS = 180_000;
const OUTAGE_ORDERS = FULL ? 6 : 3;
/** The webhook receiver answers 503 to every FLAKY_EVERY-th request (the platform retries after 1, 2, 4 s). */
const FLAKY_EVERY = 4;

type OrderKind = 'embed' | 'extract' | 'pdf';
interface Accepted {
  kind: OrderKind;
  order: WatermarkOrderView;
  /** When the API accepted it (ms since the epoch). */
  acceptedAt?: number;
}

interface WebhookBody {
  eventId: string;
  eventType: string;
  data: { orderId?: string } & Record<string, unknown>;
}

/** Credits an order in its final state should have cost (spec: 1 per text; extract 1 unless unsupported/error). */
function expectedCharge(kind: OrderKind, view: WatermarkOrderView): number {
  if (view.status !== 'complete') {
    return 0;
  }
  if (kind === 'extract') {
    return ['detected', 'not_detected', 'inconclusive'].includes(view.result?.detectionStatus ?? '') ? 1 : 0;
  }
  return view.outputs.length;
}

/** A body with the per-attempt parts (presigned links) taken out: what must be the same on every attempt. */
function stableBody(request: ReceivedRequest): string {
  return request.rawBody.toString('utf8').replace(/"https?:\/\/[^"]*"/g, '"<url>"');
}

interface FaultRow {
  fault: string;
  /** Accepted orders not yet terminal when the fault struck. */
  inFlight: number;
  lost: number;
  stuck: number;
  duplicated: number;
  /** From the part being healthy again (restarted, resumed) to every order terminal. */
  recoverMs: number;
  /** From the fault to every order terminal (a second replica may take over before the restart). */
  sinceFaultMs: number;
  /** Cluster rows: from the kill to the first answer of the stream's new leader (the JetStream election). */
  electedMs?: number;
  /**
   * From the fault to the first order accepted after it that is complete: the whole path (creation, upload, job,
   * worker, result) works again. Every row has such orders: the fault strikes while the load still has some to create.
   */
  movingAgainMs?: number;
}

interface Fault {
  name: string;
  inject: () => Promise<void>;
  restore: () => Promise<void>;
  /** Cluster rows: how long after the kill the stream answered with a leader again. */
  elected?: () => Promise<number | undefined>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pidOf(key: string): number {
  return stack().state.processes[key].pid;
}

/** The last refusal of createOrder, for the failure message. */
let lastCreateAnswer = '';

/** A client that fails over: a connection error on one gateway replica is retried on the other, same idempotency key. */
async function createOrder(key: string, body: Record<string, unknown>, attempt = 0, path = '/api/v3/orders/wtr-embed'): Promise<WatermarkOrderView | null> {
  for (let tries = 0; tries < 20; tries += 1) {
    try {
      const response = await api<{ data: WatermarkOrderView }>(path, { key, method: 'POST', body, replica: (attempt + tries) % 2 });
      if (response.status === 200) {
        return response.body.data;
      }
      lastCreateAnswer = `${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
      if (response.status < 500 && response.status !== 429) {
        return null;
      }
    } catch {
      // connection refused or reset: the other replica
    }
    await pause(500);
  }
  return null;
}

async function readOrder(key: string, orderId: string): Promise<WatermarkOrderView | null> {
  for (const replica of [0, 1]) {
    try {
      const response = await api<{ data: WatermarkOrderView }>(`/api/v3/orders/${orderId}`, { key, replica });
      if (response.status === 200) {
        return response.body.data;
      }
      if (response.status === 404) {
        return null;
      }
      if (response.status === 429) {
        await pause(1000);
      }
    } catch {
      // this replica is down
    }
  }
  throw new Error('no gateway replica answers');
}

/** POST or GET on whichever gateway replica answers (the report routes), retried through faults. */
async function reportCall(key: string, orderId: string, method: 'POST' | 'GET'): Promise<ReportView | null> {
  for (let tries = 0; tries < 40; tries += 1) {
    try {
      const response = await api<{ data: ReportView }>(method === 'POST' ? `/api/v3/orders/${orderId}/reports` : `/api/v3/orders/${orderId}/reports/en-US`, {
        key,
        method,
        ...(method === 'POST' ? { body: { locale: 'en-US' } } : {}),
        replica: tries % 2,
      });
      if (response.status === 200 || response.status === 202) {
        return response.body.data;
      }
      if (response.status === 404 && method === 'GET') {
        return null;
      }
    } catch {
      // this replica is down
    }
    await pause(500);
  }
  throw new Error(`report ${method} never answered`);
}

async function upload(url: string, bytes: Buffer): Promise<void> {
  for (let tries = 0; tries < 60; tries += 1) {
    try {
      const response = await fetch(url, { method: 'PUT', body: new Uint8Array(bytes), signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.status === 200) {
        return;
      }
    } catch {
      // S3 frozen or restarting: a client retries
    }
    await pause(1000);
  }
  throw new Error('upload never succeeded');
}

const execFileAsync = promisify(execFile);

/** `npm run admin -- parked …` as an operator runs it, with the stack's NATS. */
async function adminParked<T>(...args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, ['-r', './tools/register.js', 'tools/admin/admin.ts', 'parked', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: layout.natsUrl },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as T;
}

interface ParkedRow {
  seq: number;
  durable: string;
  originalSubject: string;
  deliveries: number;
  reason: string;
}

/** Output objects stored for one order (s3rver keeps each object as `<key>._S3rver_object`). */
function outputObjects(accountId: string, orderId: string, since: number): string[] {
  const directory = path.join(ROOT, 'tmp', layout.name, 's3', 'cp-outputs', accountId, orderId, 'outputs');
  if (!existsSync(directory)) {
    return [];
  }
  // Only this run's objects: the S3 directory outlives the database of earlier runs (same ids).
  return readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter(
    (name) => name.endsWith('._S3rver_object') && statSync(path.join(directory, name)).mtimeMs >= since,
  );
}

describe('fault injection: nothing lost, nothing stuck, nothing duplicated', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  let image: Buffer;
  let marked: Buffer;
  let receiver: WebhookReceiver;
  /** What the receiver answered to each request. */
  const answers = new WeakMap<ReceivedRequest, number>();
  /** One finished extract order per fault: its report is requested while the fault strikes. */
  const reportOrders: string[] = [];
  const pdf = corpusFile('pdfs/text-1-page.pdf');
  /** Last sequence of the PARKED stream before the first fault: what the faults park comes after it. */
  let parkedBefore = 0;
  const table: FaultRow[] = [];
  const natsPort = Number(new URL(natsServers(layout.natsUrl)[0]).port);
  const natsDir = path.join(ROOT, 'tmp', `${layout.name}-nats`);
  const natsPidFile = path.join(ROOT, 'tmp', `${layout.name}-nats.pid`);
  /** The run's JetStream cluster when the stack uses one (test-infra keeps its nodes and pids in this file). */
  const clusterFile = natsClusterFile(layout.name.replace(/[^a-z0-9_]/g, '_'));
  const clustered = layout.natsUrl.includes(',') && existsSync(clusterFile);
  /** The node the last row stopped for good; started again after the suite so later specs have three. */
  let nodeLeftDown: string | undefined;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 1000);
    // the orders service learns the grant from an event: the first order waits for it (else 402)
    for (let waited = 0; (await balanceOf(account.accountId)) < 1000; waited += 1) {
      if (waited > 120) {
        throw new Error('the credit grant never reached the orders service');
      }
      await pause(250);
    }
    image = await sharp({ create: { width: 512, height: 384, channels: 3, background: { r: 120, g: 90, b: 60 } } })
      .composite([{ input: Buffer.from('<svg width="512" height="384"><circle cx="256" cy="192" r="150" fill="#3a7"/></svg>') }])
      .png()
      .toBuffer();
    parkedBefore = await parkedSequence();
    receiver = await WebhookReceiver.start((attempt, request) => {
      const status = attempt % FLAKY_EVERY === 0 ? 503 : 200;
      answers.set(request, status);
      return status;
    });
    const hook = await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'chaos', url: receiver.url() } });
    expect(hook.status).toBe(201);
    // The inspected copy of the extract orders: this image marked by the platform.
    const embedded = await settle(account.liveKey, await createOrder(account.liveKey, embedBody([{ fileName: 'source.png', texts: ['chaos source'] }])), [image]);
    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${embedded.orderId}/download`, { key: account.liveKey });
    marked = Buffer.from(await (await fetch(link.body.data.downloadUrl)).arrayBuffer());
    if (marked.subarray(0, 2).toString('latin1') === 'PK') {
      marked = [...(await readZip(marked)).values()][0];
    }
    for (let index = 0; index < faults.length; index += 1) {
      const extract = await settle(account.liveKey, await createOrder(account.liveKey, extractBody(`leak-${index}.png`), 0, '/api/v3/orders/wtr-extract'), [image, marked]);
      expect(extract.result).toMatchObject({ detectionStatus: 'detected' });
      reportOrders.push(extract.orderId);
    }
    const processes = stack();
    if (!processes.state.processes[SECOND_PROCESSOR]) {
      // The port after the eight services' (+100…+107); +190 was 4190, a port fetch refuses to call.
      await processes.startService('watermark-processor', SECOND_PROCESSOR, layout.ports['api-gateway'][0] + 108);
    }
  }, 120_000);

  afterAll(async () => {
    if (nodeLeftDown) {
      await restartNode(nodeLeftDown);
    }
    const processes = stack();
    await processes.stop(SECOND_PROCESSOR);
    delete processes.state.processes[SECOND_PROCESSOR];
    processes.save();
    await receiver.stop();
    process.stdout.write(
      `\n${'fault'.padEnd(43)}| in flight | lost | stuck | duplicated | recover (s) | since fault (s) | moving again (s)\n` +
        `${'-'.repeat(43)}|-----------|------|-------|------------|-------------|-----------------|-----------------\n` +
        table
          .map(
            (row) =>
              `${row.fault.padEnd(43)}| ${String(row.inFlight).padStart(9)} | ${String(row.lost).padStart(4)} | ${String(row.stuck).padStart(5)} | ${String(row.duplicated).padStart(10)} | ${(row.recoverMs / 1000).toFixed(1).padStart(11)} | ${(row.sinceFaultMs / 1000).toFixed(1).padStart(15)} | ${(row.movingAgainMs === undefined ? '—' : (row.movingAgainMs / 1000).toFixed(1)).padStart(16)}\n`,
          )
          .join('') +
        table
          .filter((row) => row.electedMs !== undefined)
          .map((row) => `${row.fault}: the stream answered with a new leader ${((row.electedMs ?? 0) / 1000).toFixed(1)} s after the kill\n`)
          .join('') +
        table
          .filter((row) => row.recoverMs > RECOVERY_GOAL_MS)
          .map((row) => `${row.fault}: recovered in ${(row.recoverMs / 1000).toFixed(1)} s, past the goal of ${RECOVERY_GOAL_MS / 1000} s\n`)
          .join(''),
    );
    mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench-results', FULL ? 'chaos-full.json' : 'chaos-short.json'), `${JSON.stringify({ at: new Date().toISOString(), recoveryGoalMs: RECOVERY_GOAL_MS, table }, null, 2)}\n`);
    await gateway.destroy();
    await orders.destroy();
  });

  function readCluster(): { nodes: NatsClusterNode[]; pids: number[] } {
    return JSON.parse(readFileSync(clusterFile, 'utf8')) as { nodes: NatsClusterNode[]; pids: number[] };
  }

  /** The cluster node (`server_name`) that leads a stream's replicas now. */
  async function streamLeader(stream: string): Promise<string> {
    const nats = await connect({ servers: natsServers(layout.natsUrl) });
    try {
      const leader = (await (await nats.jetstreamManager()).streams.info(stream)).cluster?.leader;
      if (!leader) {
        throw new Error(`stream ${stream} reports no leader`);
      }
      return leader;
    } finally {
      await nats.close();
    }
  }

  /** kill -9 of one cluster node, waiting until its client port is closed. */
  async function killNode(name: string): Promise<void> {
    const { nodes, pids } = readCluster();
    const index = nodes.findIndex((node) => node.name === name);
    process.kill(pids[index], 'SIGKILL');
    for (let waited = 0; waited < 40 && (await portOpen('127.0.0.1', nodes[index].clientPort)); waited += 1) {
      await pause(100);
    }
  }

  /** Starts a killed node again on its own store (it catches up from the others), keeping its pid for later rows. */
  async function restartNode(name: string): Promise<void> {
    const cluster = readCluster();
    const index = cluster.nodes.findIndex((node) => node.name === name);
    cluster.pids[index] = await startNatsClusterNode(cluster.nodes[index], cluster.nodes);
    writeFileSync(clusterFile, JSON.stringify(cluster, null, 2));
  }

  /**
   * From now until `stream` answers with a leader (the cluster elected one), polled every 100 ms through the
   * surviving nodes; undefined after a minute.
   */
  async function untilElected(stream: string): Promise<number | undefined> {
    const started = Date.now();
    const nats = await connect({ servers: natsServers(layout.natsUrl), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const manager = await nats.jetstreamManager({ timeout: 500, checkAPI: false });
      while (Date.now() - started < 60_000) {
        const leader = await manager.streams.info(stream).then((info) => info.cluster?.leader, () => undefined);
        if (leader) {
          return Date.now() - started;
        }
        await pause(100);
      }
      return undefined;
    } finally {
      await nats.close();
    }
  }

  /** kill -9 of the node leading `stream` (found when the row starts), started again a second later. */
  const killLeader = (stream: string): Fault => {
    let killed = '';
    let elected: Promise<number | undefined> = Promise.resolve(undefined);
    return {
      name: `kill -9 JetStream leader of ${stream}`,
      inject: async () => {
        killed = await streamLeader(stream);
        await killNode(killed);
        elected = untilElected(stream);
      },
      restore: () => restartNode(killed),
      elected: () => elected,
    };
  };

  /**
   * The leader of EVENTS killed and left down: the rows after it run on two nodes. Its "restore" restarts the
   * webhooks service, which must start (streams checked and updated at R3, its consumers, its outbox relay) with a
   * node of three missing. A service off the creation path: restarting the orders service here made "moving
   * again" measure its start (5-8 s without orders), not the node loss.
   */
  const nodeDownForGood: Fault = {
    name: 'one NATS node down for the rest of the run',
    inject: async () => {
      nodeLeftDown = await streamLeader(Streams.events.name);
      await killNode(nodeLeftDown);
    },
    restore: async () => {
      await stack().stop('webhooks');
      await stack().startService('webhooks');
    },
  };

  /** Every NATS process at once (the single server, or all three nodes), started again on the same stores. */
  const killNats: Fault = {
    name: 'kill -9 NATS',
    inject: async () => {
      if (clustered) {
        await Promise.all(readCluster().nodes.map((node) => killNode(node.name)));
      } else {
        process.kill(Number(readFileSync(natsPidFile, 'utf8')), 'SIGKILL');
      }
      await pause(300);
    },
    restore: async () => {
      if (clustered) {
        for (const node of readCluster().nodes) {
          await restartNode(node.name);
        }
        await waitForJetStream(natsClusterUrl(readCluster().nodes), 30_000);
      } else {
        // Same port and JetStream store: file storage survives the crash.
        writeFileSync(natsPidFile, String(await startPrivateNats(natsPort, natsDir)));
      }
    },
  };

  const kill9 = (key: string): Fault => ({
    name: `kill -9 ${key}`,
    inject: () => stack().stop(key, 'SIGKILL'),
    restore: () => {
      const [service] = key.split('#') as [Parameters<ReturnType<typeof stack>['startService']>[0]];
      return stack().startService(service, key);
    },
  });

  /** kill -9 of the stack's own PostgreSQL postmaster (its backends exit after it), then a start with crash recovery. */
  const killPostgres = ({ port, dataDir }: { port: number; dataDir: string }): Fault => ({
    name: 'kill -9 PostgreSQL',
    inject: async () => {
      const pid = privatePostgresPid(dataDir);
      if (!pid) {
        throw new Error('the private PostgreSQL is not running');
      }
      process.kill(pid, 'SIGKILL');
      // The backends notice the postmaster's death and exit; a new postmaster waits for them to go.
      for (let waited = 0; waited < 20 && (await portOpen('127.0.0.1', port)); waited += 1) {
        await pause(250);
      }
      await pause(2000);
    },
    restore: async () => {
      await startPrivatePostgres(port, dataDir);
    },
  });

  /** SIGSTOP for a while (the process holds its sockets but answers nothing), then SIGCONT. */
  const freeze = (key: string, name: string, ms: number): Fault => ({
    name,
    inject: async () => {
      process.kill(pidOf(key), 'SIGSTOP');
      await pause(ms);
    },
    restore: async () => {
      process.kill(pidOf(key), 'SIGCONT');
    },
  });

  const extractBody = (inspected: string): Record<string, unknown> => ({ idempotencyKey: randomUUID(), file: { fileName: inspected, originalFile: { fileName: 'source.png' } } });

  /** Uploads an order's files and waits until it is terminal (set-up, no fault). */
  async function settle(key: string, created: WatermarkOrderView | null, contents: Buffer[]): Promise<WatermarkOrderView> {
    if (!created) {
      throw new Error(`set-up order not created: ${lastCreateAnswer}`);
    }
    const order = created;
    for (const [index, file] of order.files.entries()) {
      await upload(file.uploadUrl ?? '', contents[index]);
    }
    for (let waited = 0; waited < 120; waited += 1) {
      const current = await readOrder(key, order.orderId);
      if (current && ['complete', 'failed'].includes(current.status)) {
        return current;
      }
      await pause(1000);
    }
    throw new Error(`order ${order.orderId} did not finish`);
  }

  const faults: Fault[] = [
    kill9('watermark-processor'),
    kill9('api-gateway'),
    ...(layout.privatePostgres ? [killPostgres(layout.privatePostgres)] : []),
    // The short run's one leader kill on the cluster (issue 35).
    ...(clustered ? [killLeader(Streams.jobs.name)] : []),
    ...(FULL
      ? [
          // Full run only, for time. (An earlier note said the webhooks service's RPC routes stayed at 503
          // after a NATS restart; since the RPC server reconnects without limit they answer again at once: every
          // node of the three killed and restarted, GET /api/v2/orders/webhooks answered 200 from the first try.)
          killNats,
          kill9(SECOND_PROCESSOR),
          kill9('api-gateway#1'),
          kill9('orders'),
          kill9('uploads'),
          kill9('webhooks'),
          kill9('reports'),
          kill9('ai-detector'),
          kill9('retention'),
          freeze('watermark-processor', 'SIGSTOP processor past ack wait', 25_000),
          freeze('s3', 'S3 unreachable 30 s', 30_000),
          ...(clustered ? [killLeader(Streams.events.name), nodeDownForGood] : []),
        ]
      : []),
  ];

  it.each(faults.map((fault, index) => [fault.name, fault, index] as const))('%s', async (_name, fault, faultIndex) => {
    const startedAt = Date.now() - 1000;
    const balanceBefore = await balanceOf(account.accountId);
    const accepted: Accepted[] = [];
    const expectedOrders = ORDERS_PER_FAULT + 2;
    const reportOrderId = reportOrders[faultIndex];
    // The fault strikes when the load is under way: the extract, the PDF and the first image embed accepted and
    // uploaded (in flight), the other embeds created once it has struck (accepted after the fault: they measure
    // "moving again"). A fixed pause before the fault left both to the machine's speed: a load accepted whole within
    // it left no order after the fault, the watcher below had nothing to poll until its 120 s limit, and the row
    // sat idle for 120 s less its own run (the gaps of about 112 s without a request in the fresh-clone runs).
    let markUnderway = (): void => undefined;
    const underway = new Promise<void>((resolve) => {
      markUnderway = resolve;
    });
    let markStruck = (): void => undefined;
    const struck = new Promise<void>((resolve) => {
      markStruck = resolve;
    });
    // Steady load while the fault strikes: a report request, then an extract, a PDF embed and image embeds,
    // created (failing over between gateway replicas) and uploaded one after another.
    const load = (async () => {
      expect(await reportCall(account.liveKey, reportOrderId, 'POST')).not.toBeNull();
      const extract = await createOrder(account.liveKey, extractBody(`chaos-${faultIndex}.png`), 0, '/api/v3/orders/wtr-extract');
      expect(extract).not.toBeNull();
      accepted.push({ kind: 'extract', order: extract as WatermarkOrderView, acceptedAt: Date.now() });
      await upload(extract?.files[0].uploadUrl ?? '', image);
      await upload(extract?.files[1].uploadUrl ?? '', marked);
      const document = await createOrder(account.liveKey, embedBody([{ fileName: `chaos-${faultIndex}.pdf`, texts: [`chaos pdf ${fault.name}`] }]), 1);
      expect(document).not.toBeNull();
      accepted.push({ kind: 'pdf', order: document as WatermarkOrderView, acceptedAt: Date.now() });
      await upload(document?.files[0].uploadUrl ?? '', pdf);
      for (let index = 0; index < ORDERS_PER_FAULT; index += 1) {
        const body = embedBody([{ fileName: `chaos-${index}.png`, texts: [`chaos ${fault.name} ${index} a`, `b ${index}`] }], randomUUID());
        const order = await createOrder(account.liveKey, body, index);
        expect(order).not.toBeNull();
        accepted.push({ kind: 'embed', order: order as WatermarkOrderView, acceptedAt: Date.now() });
        await upload(order?.files[0].uploadUrl ?? '', image);
        if (index === 0) {
          markUnderway();
          await struck;
        }
      }
    })();
    // A load that fails before it is under way fails the row here, instead of leaving it waiting.
    await Promise.race([underway, load]);
    const before = await Promise.all(accepted.map(({ order }) => readOrder(account.liveKey, order.orderId).catch(() => null)));
    const inFlight = before.filter((order) => !order || !['complete', 'failed'].includes(order.status)).length + (expectedOrders - accepted.length);
    const faultAt = Date.now();
    markStruck();
    // Watches the orders accepted after the fault until one of them is complete: orders move again. It ends with the
    // row's settling (one last look once every order is terminal), not at a limit of its own.
    let movingAgainAt: number | undefined;
    let settled = false;
    const watching = (async () => {
      for (let last = false; movingAgainAt === undefined && !last; ) {
        last = settled || Date.now() - faultAt >= SETTLE_TIMEOUT_MS;
        const fresh = accepted.filter((entry) => (entry.acceptedAt ?? 0) > faultAt);
        const views = await Promise.all(fresh.map(({ order }) => readOrder(account.liveKey, order.orderId).catch(() => null)));
        if (views.some((view) => view?.status === 'complete')) {
          movingAgainAt = Date.now();
        } else if (!last) {
          await pause(250);
        }
      }
    })();
    await fault.inject();
    await pause(1000);
    await fault.restore();
    const restoredAt = Date.now();
    await load;
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let final: Array<WatermarkOrderView | null> = [];
    let report: ReportView | null = null;
    for (;;) {
      final = await Promise.all(accepted.map(({ order }) => readOrder(account.liveKey, order.orderId).catch(() => undefined))).then((all) => all.map((order) => order ?? null));
      report = await reportCall(account.liveKey, reportOrderId, 'GET').catch(() => null);
      const ordersDone = final.every((order) => order && ['complete', 'failed'].includes(order.status));
      if ((ordersDone && report && ['completed', 'failed'].includes(report.status)) || Date.now() > deadline) {
        break;
      }
      await pause(1000);
    }
    const recoverMs = Date.now() - restoredAt;
    const sinceFaultMs = Date.now() - faultAt;
    settled = true;
    await watching;
    const lost = final.filter((order) => order === null).length;
    const unfinished = accepted.filter((_entry, index) => final[index] !== null && !['complete', 'failed'].includes(final[index]?.status ?? ''));
    const stuck = unfinished.length + (report?.status === 'completed' ? 0 : 1);
    const duplicated = accepted.reduce((sum, { order }, index) => sum + Math.max(0, outputObjects(account.accountId, order.orderId, startedAt).length - (final[index]?.outputs.length ?? order.outputs.length)), 0);
    table.push({ fault: fault.name, inFlight, lost, stuck, duplicated, recoverMs, sinceFaultMs, electedMs: await fault.elected?.(), movingAgainMs: movingAgainAt === undefined ? undefined : movingAgainAt - faultAt });
    if (stuck > 0) {
      // A row that fails says where it stopped: each unfinished order's timeline, the report, the broker's view.
      const lines = [`${fault.name}: ${stuck} stuck; report ${reportOrderId}: ${report?.status ?? 'not read'}`];
      for (const { kind, order } of unfinished) lines.push(`${kind} order ${order.orderId} timeline:\n${await timelineText(order.orderId)}`);
      if (report?.status !== 'completed') lines.push(`report's order ${reportOrderId} timeline:\n${await timelineText(reportOrderId)}`);
      lines.push(`JOBS consumers:\n${await jobConsumersText()}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    expect({ lost, stuck, duplicated }).toEqual({ lost: 0, stuck: 0, duplicated: 0 });
    // Orders were accepted after the fault, and one of them completed: the row measured orders moving again.
    expect(accepted.filter((entry) => (entry.acceptedAt ?? 0) > faultAt).length).toBeGreaterThan(0);
    expect(movingAgainAt).toBeDefined();
    const views = final as WatermarkOrderView[];
    // Nothing here should fail: the extract finds the mark, the embeds complete with every output stored once.
    expect(views.map((view, index) => [accepted[index].kind, view.status])).toEqual(accepted.map(({ kind }) => [kind, 'complete']));
    expect(views[0].result).toMatchObject({ detectionStatus: 'detected' });
    for (const [index, view] of views.entries()) {
      if (accepted[index].kind !== 'extract') {
        expect(outputObjects(account.accountId, view.orderId, startedAt)).toHaveLength(view.outputs.length);
      }
    }
    // The ledger sums to the balance; each order's entries add up to what its final state costs.
    const ledger = await orders.query<Array<{ sum: number }>>('SELECT COALESCE(SUM(amount), 0)::int AS sum FROM credit_ledger_entry WHERE account_id = $1', [account.accountId]);
    const balance = await balanceOf(account.accountId);
    expect(ledger[0].sum).toBe(balance);
    const charges = views.map((view, index) => expectedCharge(accepted[index].kind, view));
    expect(balanceBefore - balance).toBe(charges.reduce((sum, charge) => sum + charge, 0));
    const perOrder = await orders.query<Array<{ order_id: string; sum: number }>>(
      `SELECT split_part(reference, ':', 2) AS order_id, SUM(amount)::int AS sum FROM credit_ledger_entry WHERE account_id = $1 AND split_part(reference, ':', 2) = ANY($2) GROUP BY 1`,
      [account.accountId, views.map((view) => view.orderId)],
    );
    expect(views.map((view) => perOrder.find((row) => row.order_id === view.orderId)?.sum ?? 0)).toEqual(charges.map((charge) => -charge));
    // Every order's completion reached the flaky receiver: one eventId per order, answered 200 at least once
    // (a 503 is retried), and every attempt of an event carries the same body but for its presigned links.
    const delivered = await waitForDeliveries(views.map((view) => view.orderId));
    for (const view of views) {
      const requests = delivered.get(view.orderId) ?? [];
      const eventIds = new Set(requests.map((request) => (JSON.parse(request.rawBody.toString('utf8')) as WebhookBody).eventId));
      expect({ orderId: view.orderId, eventIds: eventIds.size }).toEqual({ orderId: view.orderId, eventIds: 1 });
      expect(new Set(requests.map(stableBody)).size).toBe(1);
    }
    // every service answers its routes again (request/reply over NATS resubscribed after the fault)
    expect(await answersAgain(account.liveKey, reportOrderId)).toEqual({ webhooks: 200, reports: 200, orders: 200 });
    expect(recoverMs).toBeLessThan(SETTLE_TIMEOUT_MS);
  }, 300_000);

  /** Orders whose files were uploaded, each until terminal or the deadline; null for an order no replica knows. */
  async function untilTerminal(accepted: Accepted[], timeoutMs: number): Promise<Array<WatermarkOrderView | null>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const final = await Promise.all(accepted.map(({ order }) => readOrder(account.liveKey, order.orderId).catch(() => undefined))).then((all) => all.map((order) => order ?? null));
      if (final.every((order) => order && ['complete', 'failed'].includes(order.status)) || Date.now() > deadline) {
        return final;
      }
      await pause(1000);
    }
  }

  /** Subjects and reasons of what the PARKED stream holds after `fromSeq`. */
  async function parkedSince(fromSeq: number): Promise<string[]> {
    const nats = await connect({ servers: natsServers(layout.natsUrl) });
    const parked: string[] = [];
    try {
      const manager = await nats.jetstreamManager();
      const last = (await manager.streams.info(Streams.parked.name)).state.last_seq;
      for (let seq = fromSeq + 1; seq <= last; seq += 1) {
        const message = await manager.streams.getMessage(Streams.parked.name, { seq }).catch(() => null);
        if (message) {
          parked.push(`${message.subject}: ${message.header.get('Parked-Reason')} ${StringCodec().decode(message.data).slice(0, 200)}`);
        }
      }
    } finally {
      await nats.close();
    }
    return parked;
  }

  // Issue 29: a PostgreSQL outage of minutes, with two processor replicas holding jobs through it. Attempts are the
  // broker's delivery count and an outage never adds to it, so nothing is parked (parking is the only way an order
  // could end up waiting with `processingDelayed`), every order completes, and the credits add up.
  for (const postgres of layout.privatePostgres ? [layout.privatePostgres] : []) {
    it(
      'PostgreSQL down 3 minutes under load with two processor replicas: nothing parked, every order terminal, credits balanced',
      async () => {
        const startedAt = Date.now() - 1000;
        const parkedFrom = await parkedSequence();
        const balanceBefore = await balanceOf(account.accountId);
        expect(stack().state.processes[SECOND_PROCESSOR]).toBeDefined();
        // Large enough that each embed takes a while: the replicas are busy with jobs when the database goes.
        const large = await sharp(image).resize(2400, 1800).png().toBuffer();
        const accepted: Accepted[] = [];
        for (let index = 0; index < OUTAGE_ORDERS; index += 1) {
          const body = embedBody([{ fileName: `outage-${index}.png`, texts: [`outage ${index} a`, `outage ${index} b`] }], randomUUID());
          const order = await createOrder(account.liveKey, body, index);
          expect(order).not.toBeNull();
          accepted.push({ kind: 'embed', order: order as WatermarkOrderView });
          await upload(order?.files[0].uploadUrl ?? '', large);
        }
        // The outage strikes once the processors have jobs (an output started or done), with outputs still to do:
        // those jobs are held through the outage by the two replicas (the old in-process count double-counted
        // them as they moved between replicas, and parked them).
        let unfinishedAtOutage = 0;
        for (const until = Date.now() + 60_000; Date.now() < until; await pause(100)) {
          const outputs = (await Promise.all(accepted.map(({ order }) => readOrder(account.liveKey, order.orderId)))).flatMap((view) => view?.outputs ?? []);
          if (outputs.some((output) => output.status === 'processing' || output.status === 'completed')) {
            unfinishedAtOutage = outputs.filter((output) => output.status !== 'completed').length;
            break;
          }
        }
        expect(unfinishedAtOutage).toBeGreaterThan(0);
        const pid = privatePostgresPid(postgres.dataDir);
        if (!pid) {
          throw new Error('the private PostgreSQL is not running');
        }
        process.kill(pid, 'SIGKILL');
        await pause(PG_OUTAGE_MS);
        await startPrivatePostgres(postgres.port, postgres.dataDir);
        const final = await untilTerminal(accepted, SETTLE_TIMEOUT_MS);
        expect(final.map((view) => [view?.status, view?.processingDelayed])).toEqual(accepted.map(() => ['complete', false]));
        const views = final as WatermarkOrderView[];
        for (const view of views) {
          expect(outputObjects(account.accountId, view.orderId, startedAt)).toHaveLength(view.outputs.length);
        }
        expect(await parkedSince(parkedFrom)).toEqual([]);
        const ledger = await orders.query<Array<{ sum: number }>>('SELECT COALESCE(SUM(amount), 0)::int AS sum FROM credit_ledger_entry WHERE account_id = $1', [account.accountId]);
        const balance = await balanceOf(account.accountId);
        expect(ledger[0].sum).toBe(balance);
        expect(balanceBefore - balance).toBe(views.reduce((sum, view, index) => sum + expectedCharge(accepted[index].kind, view), 0));
        // every service answers its routes again after the outage
        expect(await answersAgain(account.liveKey)).toEqual({ webhooks: 200, reports: 200, orders: 200 });
      },
      PG_OUTAGE_MS + 300_000,
    );
  }

  it('an operator replays a parked message with the admin command: listed with its reason, handled once, gone from PARKED', async () => {
    const durable = 'orders-credits-granted';
    const balanceBefore = await balanceOf(account.accountId);
    const envelope = {
      eventId: randomUUID(),
      subject: 'evt.gateway.credits.granted',
      occurredAt: new Date().toISOString(),
      data: { grantId: randomUUID(), accountId: account.accountId, amount: 7, reason: 'chaos replay' },
    };
    // A grant the orders consumer gave up on, as its EventConsumer parks it (original body, Parked-* headers).
    const nats = await connect({ servers: natsServers(layout.natsUrl) });
    try {
      const headers = natsHeaders();
      headers.set('Parked-Subject', envelope.subject);
      headers.set('Parked-Durable', durable);
      headers.set('Parked-Deliveries', '5');
      headers.set('Parked-Reason', 'chaos: attempts exhausted');
      await nats.jetstream().publish(`parked.${durable}`, new TextEncoder().encode(JSON.stringify(envelope)), { headers, msgID: randomUUID() });
    } finally {
      await nats.close();
    }
    const listed = (await adminParked<ParkedRow[]>('list', '--durable', durable)).filter((row) => row.reason === 'chaos: attempts exhausted');
    expect(listed.map(({ durable: name, originalSubject, deliveries }) => ({ name, originalSubject, deliveries }))).toEqual([
      { name: durable, originalSubject: envelope.subject, deliveries: 5 },
    ]);
    await adminParked('replay', '--seq', String(listed[0].seq));
    for (let waited = 0; (await balanceOf(account.accountId)) !== balanceBefore + 7; waited += 1) {
      if (waited > 120) {
        throw new Error(`the replayed grant was not applied (balance ${await balanceOf(account.accountId)}, expected ${balanceBefore + 7})`);
      }
      await pause(250);
    }
    expect((await adminParked<ParkedRow[]>('list', '--durable', durable)).map((row) => row.seq)).not.toContain(listed[0].seq);
    // Handled once: a second replay is impossible (gone) and the ledger still sums to the balance.
    await expect(adminParked('replay', '--seq', String(listed[0].seq))).rejects.toThrow(/no parked message/);
    const ledger = await orders.query<Array<{ sum: number }>>('SELECT COALESCE(SUM(amount), 0)::int AS sum FROM credit_ledger_entry WHERE account_id = $1', [account.accountId]);
    expect(ledger[0].sum).toBe(balanceBefore + 7);
  });

  /**
   * Status of one read route per RPC-served service, retried for up to 30 s on either gateway replica. The report
   * read is one a row requested (its own, so a row run alone with -t reads a report that exists).
   */
  async function answersAgain(key: string, reportOrderId = reportOrders[0]): Promise<Record<string, number>> {
    const routes: Record<string, string> = { webhooks: '/api/v2/orders/webhooks', reports: `/api/v3/orders/${reportOrderId}/reports/en-US`, orders: '/api/v2/orders/stats/recent' };
    const out: Record<string, number> = {};
    for (const [name, route] of Object.entries(routes)) {
      const deadline = Date.now() + 30_000;
      for (let tries = 0; ; tries += 1) {
        const status = await api(route, { key, replica: tries % 2 }).then((response) => response.status, () => 0);
        out[name] = status;
        if (status === 200 || Date.now() > deadline) {
          break;
        }
        await pause(500);
      }
    }
    return out;
  }

  /** The receiver's requests per order, once each order has an attempt the receiver answered 200. */
  async function waitForDeliveries(orderIds: string[]): Promise<Map<string, ReceivedRequest[]>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const byOrder = new Map<string, ReceivedRequest[]>();
      for (const request of receiver.received) {
        const orderId = (JSON.parse(request.rawBody.toString('utf8')) as WebhookBody).data.orderId;
        if (orderId && orderIds.includes(orderId)) {
          byOrder.set(orderId, [...(byOrder.get(orderId) ?? []), request]);
        }
      }
      const undelivered = orderIds.filter((orderId) => !(byOrder.get(orderId) ?? []).some((request) => answers.get(request) === 200));
      if (undelivered.length === 0 || Date.now() > deadline) {
        expect(undelivered).toEqual([]);
        return byOrder;
      }
      await pause(500);
    }
  }

  async function balanceOf(accountId: string): Promise<number> {
    for (let tries = 0; ; tries += 1) {
      try {
        const rows = await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]);
        return rows[0]?.balance ?? 0;
      } catch (error) {
        if (tries > 20) {
          throw error;
        }
        await pause(500);
      }
    }
  }

  /** Last sequence number of the PARKED stream (0 when empty). */
  async function parkedSequence(): Promise<number> {
    const nats = await connect({ servers: natsServers(layout.natsUrl) });
    try {
      return (await (await nats.jetstreamManager()).streams.info(Streams.parked.name)).state.last_seq;
    } finally {
      await nats.close();
    }
  }

  it('parked nothing: no message gave up on during the faults', async () => {
    const nats = await connect({ servers: natsServers(layout.natsUrl) });
    const parked: string[] = [];
    try {
      const manager = await nats.jetstreamManager();
      const last = (await manager.streams.info(Streams.parked.name)).state.last_seq;
      for (let seq = parkedBefore + 1; seq <= last; seq += 1) {
        const message = await manager.streams.getMessage(Streams.parked.name, { seq }).catch(() => null);
        if (message) {
          parked.push(`${message.subject}: ${message.header.get('Parked-Reason')} ${StringCodec().decode(message.data).slice(0, 200)}`);
        }
      }
    } finally {
      await nats.close();
    }
    expect(parked).toEqual([]);
  });

  // The recovery time is a figure, printed and written with the goal (RECOVERY_GOAL_MS), not an assertion: how fast
  // the stack recovers depends on the machine and on what runs beside it (on this file's own stack beside the
  // functional files, PostgreSQL's recovery took 40.2 s). Each row's own test asserted that every order ended, within
  // SETTLE_TIMEOUT_MS.
  it('every fault has its row', () => {
    expect(table.map((row) => row.fault)).toEqual(faults.map((fault) => fault.name));
  });
});
