// The PARKED stream seen by an operator: list what consumers gave up on, replay a message to its original
// subject (for the consumer that parked it), or discard it. Used by `npm run admin -- parked …`, and by the
// retention service's later looks at an erased account or order (discardNaming).
import { ErasureScope, EventSubjects, PARKED_SUBJECT_PREFIX, Streams } from '@cp/contracts';
import { ParkedHeaders, REPLAY_FOR_HEADER } from './event-consumer';
import { AckPolicy, DeliverPolicy, headers as natsHeaders, JetStreamClient, JetStreamManager, JsMsg, MsgHdrs, StoredMsg } from 'nats';
import { randomUUID } from 'node:crypto';

export interface ParkedMessage {
  /** Sequence in the PARKED stream: what `replay --seq` and `discard --seq` take. */
  seq: number;
  durable: string;
  originalSubject: string;
  deliveries: number;
  reason: string;
  parkedAt: string;
}

export interface ReplayResult {
  seq: number;
  durable: string;
  subject: string;
  /** Sequence of the republished copy in its original stream. */
  republishedSeq: number;
}

const DURABLE = /^[A-Za-z0-9_-]{1,200}$/;

function header(headers: MsgHdrs | undefined, name: string): string {
  return headers?.get(name) ?? '';
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /no message found|not found/i.test(error.message);
}

export class ParkedMessages {
  private readonly stream = Streams.parked.name;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  /** Parked messages, oldest first; only one consumer's when `durable` is given. */
  async list(durable?: string): Promise<ParkedMessage[]> {
    const found: ParkedMessage[] = [];
    await this.scan(this.subjectOf(durable), (message) => {
      found.push(this.describe(message.seq, message.subject, message.headers, new Date(Math.floor(message.info.timestampNanos / 1e6))));
    });
    return found;
  }

  /**
   * Reads the parked messages of `filter` once, oldest first, through a short-lived reader that never acknowledges
   * (reading changes nothing); `visit` may delete the message it is given.
   */
  private async scan(filter: string, visit: (message: JsMsg) => void | Promise<void>): Promise<void> {
    const info = await this.jsm.streams.info(this.stream, { subjects_filter: filter });
    const total = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    if (total === 0) {
      return;
    }
    const reader = await this.jsm.consumers.add(this.stream, {
      name: `admin-parked-list-${randomUUID()}`,
      filter_subject: filter,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      inactive_threshold: 60_000_000_000,
    });
    try {
      const consumer = await this.js.consumers.get(this.stream, reader.name);
      let seen = 0;
      while (seen < total) {
        const batch = await consumer.fetch({ max_messages: Math.min(256, total - seen), expires: 5000 });
        let received = 0;
        for await (const message of batch) {
          received += 1;
          seen += 1;
          await visit(message);
          if (message.info.pending === 0) {
            return;
          }
        }
        if (received === 0) {
          return;
        }
      }
    } finally {
      await this.jsm.consumers.delete(this.stream, reader.name).catch(() => undefined);
    }
  }

  /**
   * Republishes a parked message's original body to its original subject, marked for the consumer that parked
   * it (other consumers of the subject acknowledge the copy without handling it), then removes it from PARKED.
   * The copy gets a new `Nats-Msg-Id` so JetStream's de-duplication does not drop it; the consumer's inbox keeps
   * the handling once, should a copy arrive twice.
   */
  async replay(seq: number): Promise<ReplayResult> {
    const stored = await this.get(seq);
    const parked = this.describe(stored.seq, stored.subject, stored.header, stored.time);
    if (!parked.originalSubject || parked.originalSubject.startsWith(`${PARKED_SUBJECT_PREFIX}.`)) {
      throw new Error(`parked message ${seq} has no original subject to replay to`);
    }
    const headers = natsHeaders();
    headers.set(REPLAY_FOR_HEADER, parked.durable);
    const ack = await this.js.publish(parked.originalSubject, stored.data, { headers, msgID: `replay:${parked.durable}:${seq}:${randomUUID()}` });
    await this.jsm.streams.deleteMessage(this.stream, seq, false);
    return { seq, durable: parked.durable, subject: parked.originalSubject, republishedSeq: ack.seq };
  }

  async discard(seq: number): Promise<ParkedMessage> {
    const stored = await this.get(seq);
    const parked = this.describe(stored.seq, stored.subject, stored.header, stored.time);
    await this.jsm.streams.deleteMessage(this.stream, seq, false);
    return parked;
  }

  /**
   * Discards every parked message that names one of the erased accounts or orders (`scopes`): its payload's
   * `accountId` (for an order: `orderId`) or an object key under its prefix (a package job names its entries by key).
   * A job's payload can hold watermark texts (recipients' names) and file names, kept 30 days otherwise. The erasure
   * events themselves are kept: one parked by a service is to be replayed (`parked replay`), not lost. PARKED is read
   * once for all the scopes (retention's looks come in batches); the answer lists, for each scope in its order, the
   * messages discarded that name it (a message naming two of them is in both lists).
   */
  async discardNaming(scopes: readonly ErasureScope[]): Promise<ParkedMessage[][]> {
    const discarded = scopes.map((): ParkedMessage[] => []);
    if (scopes.length === 0) {
      return discarded;
    }
    await this.scan(`${PARKED_SUBJECT_PREFIX}.>`, async (message) => {
      const parked = this.describe(message.seq, message.subject, message.headers, new Date(Math.floor(message.info.timestampNanos / 1e6)));
      if (parked.originalSubject === EventSubjects.accountErasureRequested || parked.originalSubject === EventSubjects.orderErasureRequested) {
        return;
      }
      const body = bodyOf(message.data);
      const named = scopes.flatMap((scope, index) => (namesScope(body, scope) ? [index] : []));
      if (named.length === 0) {
        return;
      }
      // Gone already (an operator's discard beside this one): nothing left to erase, not a failure.
      await this.jsm.streams.deleteMessage(this.stream, message.seq, false).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      for (const index of named) discarded[index].push(parked);
    });
    return discarded;
  }

  private async get(seq: number): Promise<StoredMsg> {
    try {
      return await this.jsm.streams.getMessage(this.stream, { seq });
    } catch (error) {
      if (isNotFound(error)) {
        throw new Error(`no parked message with sequence ${seq}`);
      }
      throw error;
    }
  }

  private subjectOf(durable?: string): string {
    if (durable === undefined) {
      return `${PARKED_SUBJECT_PREFIX}.>`;
    }
    if (!DURABLE.test(durable)) {
      throw new Error('--durable must be a consumer name (letters, digits, - and _)');
    }
    return `${PARKED_SUBJECT_PREFIX}.${durable}`;
  }

  private describe(seq: number, subject: string, headers: MsgHdrs | undefined, parkedAt: Date): ParkedMessage {
    return {
      seq,
      durable: header(headers, ParkedHeaders.durable) || subject.slice(PARKED_SUBJECT_PREFIX.length + 1),
      originalSubject: header(headers, ParkedHeaders.subject),
      deliveries: Number(header(headers, ParkedHeaders.deliveries)) || 0,
      reason: header(headers, ParkedHeaders.reason),
      parkedAt: parkedAt.toISOString(),
    };
  }
}

function bodyOf(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    // Not JSON (a message parked because it could not be decoded): it names nothing this can match.
    return null;
  }
}

/**
 * Whether a decoded message names the account (or order) of `scope`, at any depth of its payload (walked
 * iteratively: a message nested deeper than the stack must not fail every discard while PARKED keeps it).
 */
export function namesScope(value: unknown, scope: ErasureScope): boolean {
  const prefix = scope.orderId === undefined ? `${scope.accountId}/` : `${scope.accountId}/${scope.orderId}/`;
  const pending: Array<{ node: unknown; key: string | null }> = [{ node: value, key: null }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, key } = next;
    if (typeof node === 'string') {
      if (scope.orderId === undefined ? key === 'accountId' && node === scope.accountId : key === 'orderId' && node === scope.orderId) {
        return true;
      }
      // Only an object key (a field named `key`, `objectKey`, `keys`, …): a watermark text or a file name of
      // another account's message may begin with the same digits and a slash ("7/11 receipts"). As written, or
      // percent-encoded as MinIO writes it in a storage notification's record (`7%2F11%2F…`).
      if (key !== null && /keys?$/i.test(key) && (node.startsWith(prefix) || decodedKey(node).startsWith(prefix))) {
        return true;
      }
    } else if (Array.isArray(node)) {
      // An array's items are named by the array's field (`keys: [...]`).
      for (const item of node as unknown[]) pending.push({ node: item, key });
    } else if (node !== null && typeof node === 'object') {
      for (const [name, item] of Object.entries(node)) pending.push({ node: item, key: name });
    }
  }
  return false;
}

/** A key as MinIO writes it in an event record (`objectKeyOf` of @cp/storage), decoded; as it is when it is not encoded. */
function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}
