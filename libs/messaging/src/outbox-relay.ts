import { Streams } from '@cp/contracts';
import { tableSql } from '@cp/database';
import { TRACEPARENT_HEADER } from '@cp/tracing';
import { Injectable, Logger } from '@nestjs/common';
import { headers as natsHeaders, JetStreamClient, MsgHdrs, NatsError } from 'nats';
import { DataSource, IsNull, LessThan } from 'typeorm';
import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { messagingMetrics } from './messaging-metrics';
import { InboxRecordsRepository } from './inbox-records.repository';
import { JobAttemptsRepository } from './job-attempts.repository';
import { OutboxEventEntity } from './outbox-event.entity';
import { outboxChannel, OutboxNotificationListener } from './outbox-notification.listener';
import { OutboxCommitSignal } from './outbox-writer';

export interface OutboxRelayOptions {
  /**
   * The safety net: a pass this often even without a notification. Events are relayed on commit (the writer's
   * signal in this process, LISTEN/NOTIFY across replicas), so this bounds only a missed notification.
   */
  pollIntervalMs: number;
  batchSize?: number;
  /** Published rows are kept this long for inspection, then deleted. */
  retainPublishedMs?: number;
  /** How long a claimed batch is this relay's before another may take it (a relay that died while publishing). */
  claimLeaseMs?: number;
}

/**
 * How long a sent job counts against its account's share (`OutboxShare`) when no result frees it: a job's result
 * comes within its attempts (4 × a deadline of at most 15 minutes, each attempt held up to 10 more minutes by an
 * outage of our own infrastructure, and the backoff: under two hours) plus its wait in the queue behind the other
 * accounts' shares. A result lost for good (its event parked) then costs the account one place for this long,
 * never for ever.
 */
export const OUTBOX_SHARE_HOLD_MS = 3 * 3600_000;

/**
 * Of the unpublished outbox rows, those waiting for the relay (the outbox lag): not parked, and not a job held back by
 * its account's share. A held job the relay has claimed once (`claimed_until` set: its share let it go) is waiting
 * for the relay again, e.g. refused by a full JOBS stream between offers, and counts as lag.
 */
export const OUTBOX_LAGGING_ROWS = 'parked_at IS NULL AND (share_key IS NULL OR (share_released_at IS NULL AND claimed_until IS NOT NULL))';

/** Longer than a batch's publish takes even on a slow broker (each publish waits at most its own timeout). */
export const OUTBOX_CLAIM_LEASE_MS = 30_000;

/**
 * How long one publish waits for JetStream's acknowledgement (the client's default is 5 s). A stream storing
 * three copies acknowledges in milliseconds, or in a few hundred under load; an acknowledgement that has not come
 * in 2 s is one that will not come: the stream's leader died and a new one is being elected (issue 35). The
 * batch is then given back and published again soon after (`pass` answers false; the loop retries within a
 * second), so the relay is waiting on the new leader rather than on a dead one's timeout. A message that was
 * stored after all is de-duplicated by its `Nats-Msg-Id`.
 */
export const OUTBOX_PUBLISH_TIMEOUT_MS = 2000;

/** JetStream's refusal of a message by a full stream whose discard policy is `new` ("maximum bytes/messages exceeded"). */
const STREAM_STORE_FAILED = 10077;
/** How long rows a full stream refused wait before they are offered to it again. */
const STREAM_FULL_RETRY_MS = 5000;

/**
 * A full stream with `discard: new` (JOBS) refusing the message: the store-failure code with its "maximum … exceeded"
 * text. The same code also stands for other store failures (a file store error, a closed store), which give the
 * whole batch back like any failure, so events of one stream never overtake each other.
 */
function isStreamFull(error: unknown): boolean {
  return error instanceof NatsError && error.api_error?.err_code === STREAM_STORE_FAILED && /maximum .*exceeded/i.test(error.api_error.description ?? '');
}

const encoder = new TextEncoder();

/** Parked rows are kept as long as the PARKED stream keeps the messages consumers gave up on, then deleted. */
export const OUTBOX_PARKED_RETENTION_MS = Streams.parked.maxAgeSeconds * 1000;

/**
 * Bytes of the headers as the client sends them (`NATS/1.0␍␊`, one `name: value␍␊` each, an empty line), with the
 * `Nats-Msg-Id` JetStream's publish adds: the server's max_payload counts headers and body together.
 */
function headerBytes(headers: MsgHdrs, msgId: string): number {
  let bytes = 'NATS/1.0\r\n'.length + '\r\n'.length + Buffer.byteLength(`Nats-Msg-Id: ${msgId}\r\n`);
  for (const key of headers.keys()) {
    for (const value of headers.values(key)) {
      bytes += Buffer.byteLength(`${key}: ${value}\r\n`);
    }
  }
  return bytes;
}

interface OutboxMessage {
  id: string;
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs;
  /** Body and headers: what the server compares with its max_payload. */
  bytes: number;
}

/**
 * Publishes committed outbox rows to JetStream. Rows are claimed with a lease (FOR UPDATE SKIP LOCKED inside one
 * short statement), so any number of replicas can relay and no transaction stays open while the broker answers; a
 * crash between publish and marking re-publishes the same `Nats-Msg-Id`, which JetStream de-duplicates (and
 * consumers' inboxes catch what falls outside the window).
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  private lastCleanup = 0;

  /**
   * `maxPayload`: the largest message the connected server takes (`nc.info.max_payload`), undefined while not
   * known; a row above it is parked, not retried (see `relayBatch`).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly js: () => JetStreamClient,
    readonly options: OutboxRelayOptions,
    private readonly maxPayload: () => number | undefined = () => undefined,
  ) {}

  /**
   * Listens for the NOTIFY that the outbox table's trigger sends when rows commit (in this replica or another)
   * and calls `onNotify` for each: the relay loop wakes. A connection of its own, with the pool's settings.
   * Given the process's `ownCommits` signal (which the caller also follows), the notifications of this
   * process's own commits are skipped: that signal has woken the relay already, at the COMMIT.
   */
  async listenForCommits(onNotify: () => void, ownCommits?: OutboxCommitSignal): Promise<OutboxNotificationListener> {
    const options = this.dataSource.options as PostgresConnectionOptions;
    const extra = (options.extra ?? {}) as { connectionTimeoutMillis?: number };
    const listener = new OutboxNotificationListener(
      {
        connectionString: options.url,
        host: options.host,
        port: options.port,
        user: options.username,
        password: typeof options.password === 'string' ? options.password : undefined,
        database: options.database,
        application_name: `${options.applicationName ?? 'service'}-outbox-listener`,
        connectionTimeoutMillis: extra.connectionTimeoutMillis,
        keepAlive: true,
      },
      outboxChannel(options.schema ?? 'public'),
      onNotify,
      ownCommits ? (sender) => ownCommits.sentByThisProcess(sender) : undefined,
    );
    await listener.start();
    return listener;
  }

  /**
   * One relay pass: publishes batches until none is left (or the service stops), then the occasional
   * cleanup. Driven by the services' periodic loop (`OutboxRelayLoop` of `@cp/runtime`), woken on commit.
   * False when it failed (the broker or the database did not answer): the loop then tries again soon.
   */
  async pass(isStopping: () => boolean = () => false): Promise<boolean> {
    try {
      // A batch smaller than the limit was all there was; what commits later wakes the next pass. A full batch goes
      // on even when a full stream refused some of its rows: they wait out of the claims, and the rows behind them
      // (another stream's events) are reached in this pass, however many refused rows stand before them.
      const batchSize = this.options.batchSize ?? 100;
      let claimed: number;
      do {
        claimed = (await this.relayClaimedBatch()).claimed;
      } while (claimed === batchSize && !isStopping());
      await this.cleanupPublished();
      return true;
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox relay pass failed; retrying soon');
      return false;
    }
  }

  /**
   * Relays one batch; returns how many rows it settled (published, or parked). Three steps, none of which holds a
   * transaction across the broker: claim a batch with a lease (one short statement), publish it, mark it published
   * (one statement). A relay that dies or hangs after claiming leaves rows whose lease runs out, and any replica
   * takes them again; what was published twice carries the same `Nats-Msg-Id` and is de-duplicated.
   *
   * A row larger than the server's max_payload can never be published: the client refuses it before sending, the
   * batch would be given back, and the row, first in `seq` order, would block every row behind it for ever. Such a
   * row is parked instead (`parked_at`, `parked_reason`, an error log, `outbox_events_parked_total`), kept for an
   * operator, and the rest of the batch goes on in order.
   */
  async relayBatch(): Promise<number> {
    return (await this.relayClaimedBatch()).settled;
  }

  /** `relayBatch`, also saying how many rows it claimed (a pass goes on while batches come full). */
  private async relayClaimedBatch(): Promise<{ claimed: number; settled: number }> {
    const batchSize = this.options.batchSize ?? 100;
    const leaseMs = this.options.claimLeaseMs ?? OUTBOX_CLAIM_LEASE_MS;
    const table = tableSql(this.dataSource.manager, OutboxEventEntity);
    // Wrapped in a SELECT: the driver then answers rows (an UPDATE answers rows and a count), in seq order.
    // A held job (`share_key`) is claimed only while fewer than its limit of its key's jobs are unfinished: sent and
    // not yet freed (for at most OUTBOX_SHARE_HOLD_MS), or claimed by a relay now; the oldest waiting go first. Two
    // relays claiming at once each rank the same waiting rows and skip the other's locked ones, so neither sends
    // more than the limit. The rest of the outbox goes in seq order as before.
    // What it reads is bounded by what it may send, not by the backlog (a large account's 100,000 held jobs cost one
    // index probe): the keys with waiting jobs by a skip scan of `idx_outbox_event_share_waiting`, and per key its
    // sent jobs (`idx_outbox_event_share_sent`, counted up to the limit) and its oldest `limit` waiting ones, among
    // which the claimed are counted (a relay claims a key's oldest first); the other rows through
    // `idx_outbox_event_unpublished_plain`, which held jobs are not in. A key's limit is its oldest waiting job's.
    // ARRAY(...) makes the candidates first, then the lock reads only them.
    const rows = await this.dataSource.query<Array<{ id: string; subject: string; envelope: object; traceparent: string | null }>>(
      `WITH RECURSIVE share_keys AS (
         (SELECT share_key, share_limit FROM ${table}
           WHERE share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NULL ORDER BY share_key, seq LIMIT 1)
         UNION ALL
         SELECT later.share_key, later.share_limit FROM share_keys
          CROSS JOIN LATERAL (SELECT next.share_key, next.share_limit FROM ${table} next
                               WHERE next.share_key > share_keys.share_key AND next.share_released_at IS NULL AND next.published_at IS NULL
                               ORDER BY next.share_key, next.seq LIMIT 1) later),
       admitted AS (
         SELECT head.id FROM share_keys
          CROSS JOIN LATERAL (
            SELECT count(*) AS n FROM (
              SELECT 1 FROM ${table} sent
               WHERE sent.share_key = share_keys.share_key AND sent.share_released_at IS NULL AND sent.published_at IS NOT NULL
                 AND sent.published_at > now() - make_interval(secs => $3::double precision / 1000)
               LIMIT share_keys.share_limit) counted) busy
          CROSS JOIN LATERAL (
            SELECT oldest.id, oldest.claimed, count(*) FILTER (WHERE oldest.claimed) OVER () AS claims,
                   row_number() OVER (PARTITION BY oldest.claimed ORDER BY oldest.seq) AS rank
              FROM (SELECT waiting.id, waiting.seq, coalesce(waiting.claimed_until >= now(), false) AS claimed FROM ${table} waiting
                     WHERE waiting.share_key = share_keys.share_key AND waiting.share_released_at IS NULL AND waiting.published_at IS NULL
                       AND waiting.parked_at IS NULL
                     ORDER BY waiting.share_key, waiting.seq LIMIT share_keys.share_limit) oldest) head
          WHERE NOT head.claimed AND head.rank + head.claims + busy.n <= share_keys.share_limit),
       claimed AS (
         UPDATE ${table} SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
          WHERE id IN (SELECT id FROM ${table}
                        WHERE id = ANY(ARRAY(
                                (SELECT id FROM ${table}
                                  WHERE published_at IS NULL AND share_key IS NULL AND parked_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                                  ORDER BY seq LIMIT $1)
                                UNION ALL SELECT id FROM admitted))
                          AND published_at IS NULL AND parked_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                        ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id, subject, envelope, traceparent, seq)
       SELECT id, subject, envelope, traceparent FROM claimed ORDER BY seq`,
      [batchSize, leaseMs, OUTBOX_SHARE_HOLD_MS],
    );
    if (rows.length === 0) {
      return { claimed: 0, settled: 0 };
    }
    const messages = rows.map((row): OutboxMessage => {
      const headers = natsHeaders();
      headers.set('Content-Type', 'application/json');
      // The writer's trace, so the consumers' spans join it (issue 33); the row keeps it across restarts.
      if (row.traceparent) {
        headers.set(TRACEPARENT_HEADER, row.traceparent);
      }
      const data = encoder.encode(JSON.stringify(row.envelope));
      return { id: row.id, subject: row.subject, data, headers, bytes: data.length + headerBytes(headers, row.id) };
    });
    const maxPayload = this.maxPayload();
    const tooLarge = maxPayload === undefined ? [] : messages.filter((message) => message.bytes > maxPayload);
    for (const message of tooLarge) {
      await this.park(table, message, `${message.bytes} bytes with headers, above the server's max_payload of ${maxPayload} bytes`);
    }
    const sendable = messages.filter((message) => !tooLarge.includes(message));
    // Rows a full stream refused are not settled: counted out, so a pass does not spin on them (the next one repeats them).
    const published = sendable.length > 0 ? await this.publish(table, sendable) : 0;
    return { claimed: rows.length, settled: tooLarge.length + published };
  }

  /**
   * Publishes claimed rows and marks them published; a failure gives them back (the caller's pass retries soon).
   * Returns how many were published. A row refused because its stream is full (JOBS refuses new messages when
   * full: `discard: 'new'`) is given back alone, and the batch's other rows are marked published: one full queue
   * must not hold every event of the service (an order's status, webhooks, reports) behind its jobs. Any other
   * failure gives the whole batch back, so events of one stream never overtake each other.
   */
  private async publish(table: string, messages: OutboxMessage[]): Promise<number> {
    // Sent together, in seq order on one connection (JetStream stores them in that order), and their
    // acknowledgements awaited together: one socket write for the batch instead of one round trip per event.
    const results = await Promise.allSettled(
      messages.map((message) => this.js().publish(message.subject, message.data, { msgID: message.id, headers: message.headers, timeout: OUTBOX_PUBLISH_TIMEOUT_MS })),
    );
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason instanceof Error ? result.reason : new Error('publish refused')] : []));
    const giveBack = async (ids: string[]): Promise<void> => {
      // At once rather than at the end of the lease; what was published meanwhile is de-duplicated next time.
      await this.dataSource.query(`UPDATE ${table} SET claimed_until = NULL WHERE id = ANY($1::uuid[]) AND published_at IS NULL`, [ids]).catch(() => undefined);
    };
    const other = failures.find((failure) => !isStreamFull(failure));
    if (other !== undefined) {
      await giveBack(messages.map((message) => message.id));
      throw other;
    }
    const refused = messages.filter((_message, index) => results[index].status === 'rejected');
    const published = messages.filter((_message, index) => results[index].status === 'fulfilled');
    if (refused.length > 0) {
      // Kept out of the claims for a few seconds: a queue full for long would otherwise fill every batch with its
      // refused rows and hold the events behind them again.
      await this.dataSource
        .query(`UPDATE ${table} SET claimed_until = now() + make_interval(secs => $2::double precision / 1000) WHERE id = ANY($1::uuid[]) AND published_at IS NULL`, [
          refused.map((message) => message.id),
          STREAM_FULL_RETRY_MS,
        ])
        .catch(() => undefined);
      this.logger.warn({ refused: refused.length, subjects: [...new Set(refused.map((message) => message.subject))] }, 'stream full: outbox rows kept and repeated');
    }
    if (published.length > 0) {
      await this.dataSource.query(`UPDATE ${table} SET published_at = now(), claimed_until = NULL WHERE id = ANY($1::uuid[])`, [published.map((message) => message.id)]);
      messagingMetrics.outboxPublished.inc(published.length);
    }
    return published.length;
  }

  /** Takes a row the broker can never accept out of the relay's claims, with the reason; never deleted unseen. */
  private async park(table: string, message: OutboxMessage, reason: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${table} SET parked_at = now(), parked_reason = $2, claimed_until = NULL WHERE id = $1 AND published_at IS NULL`, [message.id, reason]);
    messagingMetrics.outboxParked.inc({ subject: message.subject });
    this.logger.error({ eventId: message.id, subject: message.subject, bytes: message.bytes, maxPayload: this.maxPayload() }, `outbox event parked: ${reason}`);
  }

  private async cleanupPublished(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 10 * 60_000) {
      return;
    }
    this.lastCleanup = now;
    const retainMs = this.options.retainPublishedMs ?? 24 * 3600_000;
    await this.dataSource.getRepository(OutboxEventEntity).delete({ publishedAt: LessThan(new Date(now - retainMs)) });
    // Parked rows stay for an operator as long as parked messages do (the PARKED stream's 30 days).
    // `published_at IS NULL` too: parked rows are never published, and the partial index of unpublished rows then
    // serves the delete instead of a scan of the day's published rows.
    await this.dataSource.getRepository(OutboxEventEntity).delete({ publishedAt: IsNull(), parkedAt: LessThan(new Date(now - OUTBOX_PARKED_RETENTION_MS)) });
    // Jobs never sent because their order ended while they were held back: kept as long as sent rows are.
    await this.dataSource.getRepository(OutboxEventEntity).delete({ publishedAt: IsNull(), shareReleasedAt: LessThan(new Date(now - retainMs)) });
    // The consumers' attempt records and inbox rows age out here too: once per process every ten minutes, not on a
    // message's path.
    await new JobAttemptsRepository(this.dataSource).prune(now);
    await new InboxRecordsRepository(this.dataSource).prune(now);
    const [{ pending }] = await this.dataSource.query<Array<{ pending: number }>>(
      `SELECT count(*)::int AS pending FROM ${tableSql(this.dataSource.manager, OutboxEventEntity)} WHERE published_at IS NULL AND ${OUTBOX_LAGGING_ROWS}`,
    );
    messagingMetrics.outboxPending.set(pending);
  }
}
