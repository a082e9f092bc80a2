// How long retention's look at a batch of erased prefixes spends on the PARKED stream (the discard of messages
// naming them), before and after the batch's single read (e137443): before, each prefix listed PARKED and fetched
// every message again by sequence; now one read for the whole batch. Against a NATS JetStream server (NATS_URL,
// default the machine's 127.0.0.1:4222): parks MESSAGES messages of other accounts under a durable name of its own,
// plus one per erased account, runs both ways over PREFIXES accounts, checks both discard the same messages, then
// purges what it parked.
//   node -r ./tools/register.js tools/bench-retention/parked.ts [--messages 2000] [--prefixes 50]
import { ErasureScope, PARKED_SUBJECT_PREFIX, Streams } from '@cp/contracts';
import { ensureStreams, ParkedHeaders, ParkedMessages } from '@cp/messaging';
import { connect, headers as natsHeaders, JetStreamClient, JetStreamManager } from 'nats';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../stack/stack';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '2000' }, prefixes: { type: 'string', default: '50' } } });
const MESSAGES = Number(values.messages);
const PREFIXES = Number(values.prefixes);

async function park(js: JetStreamClient, durable: string, data: object): Promise<void> {
  const headers = natsHeaders();
  headers.set(ParkedHeaders.subject, 'job.watermark.embed');
  headers.set(ParkedHeaders.durable, durable);
  headers.set(ParkedHeaders.reason, 'bench');
  await js.publish(`${PARKED_SUBJECT_PREFIX}.${durable}`, new TextEncoder().encode(JSON.stringify({ eventId: randomUUID(), subject: 'job.watermark.embed', occurredAt: '', data })), { headers });
}

/** The discard before e137443: per scope, PARKED listed, then each message fetched again by sequence and matched. */
async function perPrefix(jsm: JetStreamManager, parked: ParkedMessages, scopes: ErasureScope[]): Promise<number> {
  let discarded = 0;
  for (const scope of scopes) {
    for (const listed of await parked.list()) {
      const stored = await jsm.streams.getMessage(Streams.parked.name, { seq: listed.seq }).catch(() => null);
      if (stored && namesAccount(stored.data, scope)) {
        await jsm.streams.deleteMessage(Streams.parked.name, listed.seq, false);
        discarded++;
      }
    }
  }
  return discarded;
}

/** The match of this benchmark's messages (an account's `accountId`); the library's `namesScope` walks every field. */
function namesAccount(data: Uint8Array, scope: ErasureScope): boolean {
  const body = JSON.parse(new TextDecoder().decode(data)) as { data?: { accountId?: string } };
  return body.data?.accountId === scope.accountId;
}

async function main(): Promise<void> {
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'bench-parked' });
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  await ensureStreams(jsm, [Streams.parked]);
  const parked = new ParkedMessages(js, jsm);
  const durable = `bench-parked-${randomUUID().slice(0, 8)}`;
  const base = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
  const scopes: ErasureScope[] = Array.from({ length: PREFIXES }, (_, i) => ({ accountId: String(base + i) }));
  const fill = async (): Promise<void> => {
    for (let i = 0; i < MESSAGES; i++) await park(js, durable, { accountId: String(base + PREFIXES + (i % 1000)), orderId: '1', text: 'someone else' });
    for (const scope of scopes) await park(js, durable, { accountId: scope.accountId, orderId: '2', text: 'erased' });
  };
  const rows: string[] = [];
  try {
    const others = (await jsm.streams.info(Streams.parked.name)).state.messages;
    await fill();
    let started = performance.now();
    const before = await perPrefix(jsm, parked, scopes);
    const beforeMs = performance.now() - started;
    await jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
    await fill();
    started = performance.now();
    const after = (await parked.discardNaming(scopes)).reduce((sum, list) => sum + list.length, 0);
    const afterMs = performance.now() - started;
    if (before !== PREFIXES || after !== PREFIXES) throw new Error(`discarded ${before} / ${after}, expected ${PREFIXES} each`);
    rows.push(`| ${PREFIXES} prefixes, ${MESSAGES + PREFIXES} parked messages (+${others} of others on the server) | ${(beforeMs / 1000).toFixed(2)} s | ${(afterMs / 1000).toFixed(2)} s | ${PREFIXES} / ${PREFIXES} |`);
  } finally {
    await jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
    await nc.drain();
  }
  process.stdout.write(`| batch | before (per prefix) | after (one read) | discarded before / after |\n|---|---|---|---|\n${rows.join('\n')}\n`);
  mkdirSync(path.join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench-results', 'retention-parked.json'), JSON.stringify({ measuredAt: new Date().toISOString(), messages: MESSAGES, prefixes: PREFIXES, rows }, null, 2));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
