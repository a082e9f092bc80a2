// Operator CLI: accounts (and their erasure), API keys, credits, parked messages, order timelines, classifier calibration. Usage: `USAGE`
// below (printed by --help). Run from the repository (`npm run admin --`) or, built, in a service's pod
// (`node dist/tools/admin/admin.js`, deploy/README.md).
import 'reflect-metadata';
import { SystemClock } from '@cp/clock';
import { serviceDataSourceOptions } from '@cp/database';
import {
  AccountErasureConsumers,
  DomainException,
  ErasureScope,
  ErrorCode,
  EventEnvelope,
  Events,
  KeyMode,
  ORDER_ID_PATTERN,
  OrderErasureConsumers,
  OrderErasureView,
  OrderTimelineView,
  Plan,
  PLANS,
  Rpcs,
  Streams,
} from '@cp/contracts';
import { AccountsRepository, GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, natsServers, OutboxWriter, ParkedMessage, ParkedMessages, RpcClient } from '@cp/messaging';
import { connect } from 'nats';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';

const USAGE = `Operator CLI: accounts, API keys and credits (npm run admin --, or node dist/tools/admin/admin.js in a pod).
  npm run admin -- account create --name acme --plan pro --credits 1000 [--email ops@acme.test]
  npm run admin -- key issue --account 1 --mode live|test
  npm run admin -- key revoke --key-id 3
  npm run admin -- key list --account 1
  npm run admin -- credits add --account 1 --amount 500 [--reason "top-up"]
  npm run admin -- demo            (find or create the demo account; issue a live and a test key)
  npm run admin -- account erase --account 1 --confirm acme [--wait 60]
  npm run admin -- order erase --account 1 --order 4711 --confirm 4711 [--wait 60]
Add --json for machine-readable output. Uses DATABASE_URL (the gateway's database); the gateway must
have started once so its schema exists. Events (account created, credits granted) go through the
gateway's outbox, so the orders service receives them even if it is down right now. \`account create\`,
\`credits add\` and \`demo\` then wait up to --wait seconds (default 30; 0: do not wait) until the orders service
has applied the credits (asked over NATS_URL), so that a client using the account at once is not refused for
want of credits; they print \`creditsApplied: false\` (exit 0) when the time runs out, and the credits still arrive.

\`account erase\` deletes the account for good (a data-subject or customer deletion request): --confirm must be
the account's name (as given to \`account create\`), so a mistyped id erases nothing. Its keys are deleted and
refused at once (401); the account row and owner e-mail go; every service then deletes the account's data in its
own schema (orders and their issuances, upload slots, reports, webhooks, deliveries, the contact address, every
object in storage). It waits up to --wait seconds (default 30; 0: do not
wait) until each service has consumed the erasure, and prints the services it is still waiting for (exit 0; they
erase when they consume it; \`parked list\` shows one that gave up). Then it discards the parked messages that
name the account (their payloads may hold recipients' names; not the erasure events: replay those) and prints
how many (\`parkedDiscarded\`).

\`order erase\` deletes one order for good (e.g. a request to remove its recipients' names): --account names its
owner (an order id mistyped into another account's erases nothing) and --confirm must repeat the order id. The orders service deletes its records (the owner gets 404 for it from then on) and announces the
erasure; every other service then deletes its copies (issuances, upload slots, report, webhook deliveries, every
object of the order in storage). An unfinished order is stopped, not cancelled: its credits are not given back.
Same waiting, output and exit codes as \`account erase\` (exit 2: no such order); uses NATS_URL only. Run again
for an order it erased (its answer lost, say), it prints that erasure (\`repeated: true\`, exit 0) and waits
for it the same way; one asked longer ago than EVENTS keeps events (7 days) is no longer confirmable (said so,
exit 0, no wait); for an order never erased, exit 2.

Parked messages (what consumers gave up on, stream PARKED; uses NATS_URL like the services):
  npm run admin -- parked list [--durable orders-output-completed]
  npm run admin -- parked replay --seq 12          (or --all --durable X: every message that consumer parked)
  npm run admin -- parked discard --seq 12         (or --all --durable X; or --account N [--order M]: every
                                                   message naming that erased account or order)
A replay republishes the original message to its original subject for the consumer that parked it, then
removes it from PARKED; handlers are idempotent (inbox), so a replay of something already handled is harmless.

AI classifier calibration (no database; docs/ai-detection.md "Calibrating a classifier"):
  npm run admin -- ai-classifier calibrate --model m.onnx --real DIR --generated DIR [--out m.calibration.json]
    [--max-fpr 0.01] [--thresholds 0.5,0.7,0.9] [--bands 10] [--input-size 224] [--grid 4]
    [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225]
An order's timeline (every step the services recorded, asked of the orders service over NATS_URL):
  npm run admin -- order timeline 4711 [--json]
`;

type Output = Record<string, unknown>;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n`);
  process.exit(2);
}

function required(value: string | undefined, flag: string): string {
  if (!value) {
    fail(`--${flag} is required`);
  }
  return value;
}

function accountIdOf(value: string | undefined): string {
  const id = required(value, 'account');
  if (!/^[0-9]{1,20}$/.test(id)) {
    fail('--account must be an account id (digits)');
  }
  return id;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string', default: 'free' },
        credits: { type: 'string', default: '0' },
        email: { type: 'string' },
        account: { type: 'string' },
        mode: { type: 'string', default: 'live' },
        'key-id': { type: 'string' },
        amount: { type: 'string' },
        reason: { type: 'string', default: 'operator grant' },
        json: { type: 'boolean', default: false },
        seq: { type: 'string' },
        durable: { type: 'string' },
        all: { type: 'boolean', default: false },
        model: { type: 'string' },
        real: { type: 'string' },
        generated: { type: 'string' },
        out: { type: 'string' },
        'max-fpr': { type: 'string', default: '0.01' },
        thresholds: { type: 'string', default: '0.5,0.7,0.9' },
        bands: { type: 'string', default: '10' },
        'input-size': { type: 'string', default: '224' },
        grid: { type: 'string', default: '4' },
        mean: { type: 'string', default: '0.485,0.456,0.406' },
        std: { type: 'string', default: '0.229,0.224,0.225' },
        wait: { type: 'string', default: '30' },
        confirm: { type: 'string' },
        order: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)} (admin --help lists the commands)`);
  }
  const { positionals, values } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const [resource, action] = positionals;
  if (resource === 'ai-classifier') {
    await runAiClassifier(action ?? '', values);
    return;
  }
  if (resource === 'parked') {
    await runParked(action ?? '', values);
    return;
  }
  if (resource === 'order' && action === 'erase') {
    const output = await runOrderErase(values);
    process.stdout.write(values.json ? `${JSON.stringify(output)}\n` : `${Object.entries(output).map(([k, v]) => `${k}: ${String(v)}`).join('\n')}\n`);
    return;
  }
  if (resource === 'order' && action === 'timeline') {
    await runOrderTimeline(positionals[2], values.json === true);
    return;
  }
  const dataSource = new DataSource(
    serviceDataSourceOptions({
      url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cp_dev',
      schema: 'gateway',
      entities: [...GATEWAY_DATA_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: [],
      applicationName: 'admin-cli',
      poolSize: 2,
    }),
  );
  await dataSource.initialize();
  const accounts = new AccountsRepository(dataSource, new OutboxWriter(new SystemClock()));
  let output: Output;
  try {
    output = await run(accounts, `${resource ?? ''} ${action ?? ''}`.trim(), values);
  } finally {
    await dataSource.destroy();
  }
  process.stdout.write(values.json ? `${JSON.stringify(output)}\n` : `${Object.entries(output).map(([k, v]) => `${k}: ${String(v)}`).join('\n')}\n`);
}

async function run(accounts: AccountsRepository, command: string, values: Record<string, string | boolean | undefined>): Promise<Output> {
  const text = (flag: string): string | undefined => values[flag] as string | undefined;
  switch (command) {
    case 'account create': {
      const plan = text('plan') as Plan;
      if (!PLANS.includes(plan)) {
        fail(`--plan must be one of ${PLANS.join(', ')}`);
      }
      const credits = Number(text('credits'));
      if (!Number.isInteger(credits) || credits < 0) {
        fail('--credits must be a whole number >= 0');
      }
      const waitSeconds = waitSecondsOf(text('wait'));
      const { account, initialGrantId } = await accounts.createAccount(required(text('name'), 'name'), plan, text('email') ?? null, credits);
      return { accountId: account.id, name: account.name, plan: account.plan, credits, ...(await grantOutcome(account.id, initialGrantId, waitSeconds)) };
    }
    case 'key issue': {
      const mode = text('mode') as KeyMode;
      if (mode !== 'live' && mode !== 'test') {
        fail('--mode must be live or test');
      }
      const accountId = accountIdOf(text('account'));
      if (!(await accounts.findAccount(accountId))) {
        fail(`account ${accountId} does not exist`);
      }
      const issued = await accounts.issueKey(accountId, mode);
      return { keyId: issued.id, mode, key: issued.key, note: 'shown once; only its hash is stored' };
    }
    case 'key revoke': {
      const keyId = required(text('key-id'), 'key-id');
      const revoked = await accounts.revokeKey(keyId, new Date());
      return { keyId, revoked };
    }
    case 'key list': {
      const keys = await accounts.listKeys(accountIdOf(text('account')));
      return Object.fromEntries(
        keys.map((key) => [`key ${key.id}`, `${key.keyPrefix}… ${key.mode} ${key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'}`]),
      );
    }
    case 'credits add': {
      const amount = Number(required(text('amount'), 'amount'));
      if (!Number.isInteger(amount) || amount === 0) {
        fail('--amount must be a non-zero whole number');
      }
      const accountId = accountIdOf(text('account'));
      const waitSeconds = waitSecondsOf(text('wait'));
      const grantId = await accounts.grantCredits(accountId, amount, text('reason') ?? 'operator grant');
      return { accountId, amount, grantId, ...(await grantOutcome(accountId, grantId, waitSeconds)) };
    }
    case 'account erase': {
      const accountId = accountIdOf(text('account'));
      // The account's name, not its id again: an id mistyped once is mistyped twice (and never printed here, so a
      // refusal gives nothing to copy).
      const name = text('confirm');
      if (!name) {
        fail(`account erase deletes every order, issuance, webhook and file of account ${accountId}, for good: give the account's name with --confirm`);
      }
      const waitSeconds = waitSecondsOf(text('wait'));
      const erased = await accounts.eraseAccount(accountId, name);
      if (!erased) {
        fail(`no account ${accountId} is named so (never created, already erased, or another account's id): nothing erased`);
      }
      return {
        accountId,
        erasureId: erased.erasureId,
        keysDeleted: erased.keysDeleted,
        asked: Object.keys(AccountErasureConsumers).join(', '),
        ...(await erasureOutcome({ ...erased, subject: Events.accountErasureRequested.subject, consumers: AccountErasureConsumers }, waitSeconds)),
        parkedDiscarded: await discardParkedOf({ accountId }),
      };
    }
    case 'demo': {
      const waitSeconds = waitSecondsOf(text('wait'));
      const existing = await accounts.findAccountByName('demo');
      const created = existing ? { account: existing, initialGrantId: null } : await accounts.createAccount('demo', 'pro', 'demo@example.invalid', 1000);
      const live = await accounts.issueKey(created.account.id, 'live');
      const test = await accounts.issueKey(created.account.id, 'test');
      const outcome = created.initialGrantId ? await grantOutcome(created.account.id, created.initialGrantId, waitSeconds) : {};
      return { accountId: created.account.id, liveKey: live.key, testKey: test.key, ...outcome };
    }
    default:
      fail(`unknown command "${command}" (admin --help lists the commands)`);
  }
}

function waitSecondsOf(value: string | undefined): number {
  const seconds = Number(value);
  if (!/^[0-9]{1,4}$/.test(value ?? '') || seconds > 3600) {
    fail('--wait must be whole seconds from 0 to 3600');
  }
  return seconds;
}

/**
 * Waits until the orders service has applied grant `grantId` (asking it every 250 ms, up to `waitSeconds`): the
 * grant travels through the gateway's outbox and the EVENTS stream, so for a moment after it is written an order
 * would be refused for want of credits. Nothing to wait for without a grant, or with `--wait 0`.
 */
async function grantOutcome(accountId: string, grantId: string | null, waitSeconds: number): Promise<Output> {
  if (grantId === null || waitSeconds === 0) {
    return {};
  }
  const rpc = new RpcClient({ natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'admin-cli', timeoutMs: 2_000 });
  const deadline = Date.now() + waitSeconds * 1000;
  try {
    for (;;) {
      // An orders service that is down or restarting answers nothing: asked again until the deadline.
      const status = await rpc.request(Rpcs.ordersCreditGrant, { accountId, grantId }, Math.max(1, Math.min(2_000, deadline - Date.now()))).catch(() => null);
      if (status?.applied) {
        return { creditsApplied: true, balance: status.balance };
      }
      if (Date.now() + 250 >= deadline) {
        process.stderr.write(
          `admin: the orders service has not applied the credits within ${waitSeconds} s (is it running? \`parked list\` shows a grant it gave up on); they apply when it consumes grant ${grantId}\n`,
        );
        return { creditsApplied: false };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await rpc.onApplicationShutdown();
  }
}

/** An erasure to wait for: its event (subject, id, when written) and the consumers that must acknowledge it. */
interface ErasureToConfirm {
  erasureId: string;
  requestedAt: string;
  /** An order erasure asked again (`OrderErasureView.repeated`). */
  repeated?: boolean;
  subject: string;
  consumers: Record<string, string>;
}

/**
 * Waits until every service's erasure consumer (`AccountErasureConsumers`, `OrderErasureConsumers`) has
 * acknowledged the erasure: its event is found in EVENTS once the writer's outbox (the gateway's, or orders') relayed
 * it, and a consumer whose acknowledgement floor reached that sequence has handled it (or parked it: `parked list`).
 * A later erasure's event found instead bounds it from above (the relay publishes in the order written). Nothing to
 * wait for with `--wait 0`.
 */
async function erasureOutcome(erased: ErasureToConfirm, waitSeconds: number): Promise<Output> {
  const services = Object.entries(erased.consumers);
  if (waitSeconds === 0) {
    return {};
  }
  const nc = await connect({ servers: natsServers(process.env.NATS_URL ?? 'nats://127.0.0.1:4222'), name: 'admin-cli' });
  const deadline = Date.now() + waitSeconds * 1000;
  try {
    const jsm = await nc.jetstreamManager();
    // A repeated erasure older than EVENTS keeps events: its event, and every later one of its kind, may be gone, and
    // then nothing is left to confirm it by; waiting would end listing every service as if none had erased.
    const keptMs = (await jsm.streams.info(Streams.events.name)).config.max_age / 1e6;
    if (erased.repeated === true && keptMs > 0 && Date.now() - Date.parse(erased.requestedAt) > keptMs) {
      process.stderr.write(
        `admin: erasure ${erased.erasureId} was asked ${erased.requestedAt}, longer ago than EVENTS keeps events (${Math.round(keptMs / 86_400_000)} days): its confirmations can no longer be read from NATS\n`,
      );
      return { erased: 'requested earlier; no longer confirmable' };
    }
    let waitingFor = services.map(([service]) => service);
    for (;;) {
      // Not relayed yet, or NATS unreachable for a moment: asked again until the deadline.
      const last = await jsm.streams.getMessage(Streams.events.name, { last_by_subj: erased.subject }).catch(() => null);
      const envelope = last?.json<EventEnvelope<{ erasureId: string }>>();
      if (last && envelope && (envelope.data.erasureId === erased.erasureId || envelope.occurredAt > erased.requestedAt)) {
        const pending: string[] = [];
        for (const [service, durable] of services) {
          const info = await jsm.consumers.info(Streams.events.name, durable).catch(() => null);
          if (!info || info.ack_floor.stream_seq < last.seq) {
            pending.push(service);
          }
        }
        waitingFor = pending;
      }
      if (waitingFor.length === 0) {
        return { erased: 'confirmed by every service' };
      }
      if (Date.now() + 250 >= deadline) {
        process.stderr.write(`admin: not confirmed within ${waitSeconds} s by: ${waitingFor.join(', ')} (they erase when they consume erasure ${erased.erasureId})\n`);
        return { erased: 'requested', waitingFor: waitingFor.join(', ') };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await nc.drain();
  }
}

function seqOf(value: string | undefined): number {
  if (!value || !/^[0-9]{1,15}$/.test(value) || Number(value) < 1) {
    fail('--seq must be the sequence of a parked message (see `parked list`)');
  }
  return Number(value);
}

/** One line per message: seq, consumer, original subject, deliveries, time, reason (list); what was done (replay, discard). */
function describeRow(row: object): string {
  if ('reason' in row && 'parkedAt' in row && !('discarded' in row)) {
    const parked = row as ParkedMessage;
    return [parked.seq, parked.durable, parked.originalSubject, `deliveries=${parked.deliveries}`, parked.parkedAt, parked.reason].join('\t');
  }
  return Object.entries(row)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

/** `parked list|replay|discard`: NATS only, no database. */
async function runParked(action: string, values: { json?: boolean; seq?: string; durable?: string; all?: boolean; account?: string; order?: string }): Promise<void> {
  if (!['list', 'replay', 'discard'].includes(action)) {
    fail(`unknown command "parked ${action}" (list, replay or discard)`);
  }
  if (values.order !== undefined && values.account === undefined) {
    fail('--order needs --account (the account of the erased order)');
  }
  if (action === 'discard' && values.account !== undefined) {
    const accountId = accountIdOf(values.account);
    if (values.order !== undefined && !ORDER_ID_PATTERN.test(values.order)) {
      fail('--order must be an order id (digits)');
    }
    const discarded = await discardParkedOf(values.order === undefined ? { accountId } : { accountId, orderId: values.order });
    process.stdout.write(values.json === true ? `${JSON.stringify({ discarded })}\n` : `discarded: ${String(discarded)}\n`);
    return;
  }
  if (action !== 'list' && values.all !== true && values.seq === undefined) {
    fail(`parked ${action} needs --seq N, or --all --durable X`);
  }
  if (values.all === true && !values.durable) {
    fail('--all needs --durable (the consumer whose parked messages to take)');
  }
  const nc = await connect({ servers: natsServers(process.env.NATS_URL ?? 'nats://127.0.0.1:4222'), name: 'admin-cli' });
  try {
    const parked = new ParkedMessages(nc.jetstream(), await nc.jetstreamManager());
    const sequences = action === 'list' || values.all !== true ? [] : (await parked.list(values.durable)).map((message) => message.seq);
    let rows: object[];
    if (action === 'list') {
      rows = await parked.list(values.durable);
    } else if (action === 'replay') {
      rows = [];
      for (const seq of values.all === true ? sequences : [seqOf(values.seq)]) {
        rows.push(await parked.replay(seq));
      }
    } else {
      rows = [];
      for (const seq of values.all === true ? sequences : [seqOf(values.seq)]) {
        rows.push({ ...(await parked.discard(seq)), discarded: true });
      }
    }
    process.stdout.write(values.json === true ? `${JSON.stringify(rows)}\n` : `${rows.length === 0 ? 'nothing parked' : rows.map(describeRow).join('\n')}\n`);
  } finally {
    await nc.drain();
  }
}

/** One line per step: time, service, step, duration, detail (tab-separated); the services that did not answer last. */
function formatTimeline(timeline: OrderTimelineView): string {
  const lines = timeline.steps.map((step) =>
    [step.at, step.service, step.step, step.durationMs === undefined ? '' : `${step.durationMs} ms`, step.detail ?? ''].join('\t').trimEnd(),
  );
  if (timeline.unavailable.length > 0) {
    lines.push(`not answered (their steps are missing): ${timeline.unavailable.join(', ')}`);
  }
  return `order ${timeline.orderId}\n${lines.join('\n')}\n`;
}

/**
 * Discards the parked messages naming an erased account or order (`ParkedMessages.discardNaming`): their payloads
 * may hold its recipients' names and file names, kept 30 days otherwise. NATS unreachable: reported, not fatal (the
 * erasure is done; \`parked discard --account N [--order M]\` does it later).
 */
async function discardParkedOf(scope: ErasureScope): Promise<number | string> {
  try {
    const nc = await connect({ servers: natsServers(process.env.NATS_URL ?? 'nats://127.0.0.1:4222'), name: 'admin-cli' });
    try {
      const [discarded] = await new ParkedMessages(nc.jetstream(), await nc.jetstreamManager()).discardNaming([scope]);
      return discarded.length;
    } finally {
      await nc.drain();
    }
  } catch (error) {
    process.stderr.write(`admin: parked messages not looked at (${error instanceof Error ? error.message : String(error)}); run \`parked discard --account ${scope.accountId}${scope.orderId === undefined ? '' : ` --order ${scope.orderId}`}\` later\n`);
    return 'not looked at';
  }
}

/** `order erase --account A --order N --confirm N`: through the orders service's RPC, then the same wait as `account erase`. */
async function runOrderErase(values: { account?: string; order?: string; confirm?: string; wait?: string }): Promise<Output> {
  const orderId = required(values.order, 'order');
  const accountId = required(values.account, 'account');
  if (!ORDER_ID_PATTERN.test(orderId) || !ORDER_ID_PATTERN.test(accountId)) {
    fail('--order and --account must be ids (digits)');
  }
  if (values.confirm !== orderId) {
    fail(`order erase deletes order ${orderId} with its files, issuances, report and deliveries, for good: repeat its id with --confirm ${orderId}`);
  }
  const waitSeconds = waitSecondsOf(values.wait);
  const rpc = new RpcClient({ natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'admin-cli', timeoutMs: 20_000 });
  let erased: OrderErasureView;
  try {
    erased = await rpc.request(Rpcs.ordersEraseOrder, { orderId, accountId });
  } catch (error) {
    if (error instanceof DomainException && error.code === ErrorCode.RESOURCE_NOT_FOUND) {
      fail(`account ${accountId} has no order ${orderId} (never created, erased with its account, or another account's): nothing erased`);
    }
    throw error;
  } finally {
    await rpc.onApplicationShutdown();
  }
  return {
    orderId,
    accountId: erased.accountId,
    erasureId: erased.erasureId,
    ...(erased.status === null ? {} : { statusWhenErased: erased.status }),
    repeated: erased.repeated,
    asked: Object.keys(OrderErasureConsumers).join(', '),
    ...(await erasureOutcome({ ...erased, subject: Events.orderErasureRequested.subject, consumers: OrderErasureConsumers }, waitSeconds)),
    parkedDiscarded: await discardParkedOf({ accountId: erased.accountId, orderId }),
  };
}

/** `order timeline <orderId>`: through the orders service's RPC, which asks every other service for its steps. */
async function runOrderTimeline(orderId: string | undefined, json: boolean): Promise<void> {
  if (!orderId || !ORDER_ID_PATTERN.test(orderId)) {
    fail('usage: order timeline <orderId> (digits)');
  }
  const rpc = new RpcClient({ natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'admin-cli', timeoutMs: 20_000 });
  try {
    const timeline = await rpc.request(Rpcs.ordersOrderTimeline, { orderId });
    process.stdout.write(json ? `${JSON.stringify(timeline)}\n` : formatTimeline(timeline));
  } catch (error) {
    if (error instanceof DomainException && error.code === ErrorCode.RESOURCE_NOT_FOUND) {
      process.stderr.write(`admin: order ${orderId} not found\n`);
      process.exitCode = 3;
      return;
    }
    throw error;
  } finally {
    await rpc.onApplicationShutdown();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

function numbers(value: string | undefined, flag: string, count?: number): number[] {
  const parts = (value ?? '').split(',').map((part) => Number(part.trim()));
  if (parts.length === 0 || parts.some((n) => !Number.isFinite(n)) || (count !== undefined && parts.length !== count)) {
    fail(`--${flag} must be ${count ?? 'one or more'} comma-separated number(s)`);
  }
  return parts;
}

async function runAiClassifier(action: string, values: Record<string, string | boolean | undefined>): Promise<void> {
  // Loaded only here: the classifier's runtime (ONNX, sharp) is not needed by the account and parked commands an
  // operator runs inside a service's pod.
  const { calibrateClassifier, CalibrationInputError, calibrationReport } = await import('./ai-classifier-calibration');
  if (action !== 'calibrate') fail('ai-classifier: the only action is calibrate');
  const text = (flag: string): string | undefined => values[flag] as string | undefined;
  const modelPath = required(text('model'), 'model');
  const [maxFalsePositiveRate] = numbers(text('max-fpr'), 'max-fpr', 1);
  const [bands] = numbers(text('bands'), 'bands', 1);
  const [inputSize] = numbers(text('input-size'), 'input-size', 1);
  const [grid] = numbers(text('grid'), 'grid', 1);
  if (!(maxFalsePositiveRate > 0 && maxFalsePositiveRate < 1)) fail('--max-fpr must be between 0 and 1');
  if (!Number.isInteger(bands) || bands < 2 || bands > 100) fail('--bands must be a whole number from 2 to 100');
  if (!Number.isInteger(inputSize) || inputSize < 8 || !Number.isInteger(grid) || grid < 1) fail('--input-size and --grid must be whole numbers');
  const [m0, m1, m2] = numbers(text('mean'), 'mean', 3);
  const [s0, s1, s2] = numbers(text('std'), 'std', 3);
  try {
    const summary = await calibrateClassifier({
      modelPath,
      realDir: required(text('real'), 'real'),
      generatedDir: required(text('generated'), 'generated'),
      outPath: text('out') ?? modelPath.replace(/\.onnx$/i, '') + '.calibration.json',
      inputSize,
      grid,
      mean: [m0, m1, m2],
      std: [s0, s1, s2],
      bands,
      maxFalsePositiveRate,
      thresholds: numbers(text('thresholds'), 'thresholds'),
      now: new Date(),
    });
    process.stdout.write(values.json ? `${JSON.stringify(summary.calibration)}\n` : `${calibrationReport(summary)}\n`);
  } catch (error) {
    if (error instanceof CalibrationInputError) fail(error.message);
    throw error;
  }
}
