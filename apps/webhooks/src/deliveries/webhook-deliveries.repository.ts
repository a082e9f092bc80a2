import { WebhookDeliveryStatus } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { Transaction, TransactionalRepository } from '@cp/database';
import { currentTraceparent } from '@cp/tracing';
import { DataSource } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DeliveryScope } from '../endpoints/webhook-mode';
import { AttemptRecord, NewDelivery, NewRound } from './webhook-delivery';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** Seconds an attempt may hold a delivery before another worker may take it (covers a crashed process). */
export const LEASE_SECONDS = 60;

export interface ClaimedDelivery {
  id: string;
  webhookId: number;
  accountId: string;
  eventId: string;
  eventType: WebhookDeliveryEntity['eventType'];
  occurredAt: string;
  data: Record<string, unknown>;
  download: WebhookDeliveryEntity['download'];
  links: WebhookDeliveryEntity['links'];
  status: WebhookDeliveryStatus;
  attempts: number;
  roundAttempts: number;
  round: number;
  leaseToken: string;
  /** The trace of the event the delivery is for (issue 33); absent or null when tracing was off. */
  traceparent?: string | null;
}

interface ClaimRow {
  id: string;
  webhook_id: number;
  account_id: string;
  event_id: string;
  event_type: WebhookDeliveryEntity['eventType'];
  occurred_at: Date;
  data: Record<string, unknown>;
  download: WebhookDeliveryEntity['download'];
  links: WebhookDeliveryEntity['links'];
  status: WebhookDeliveryStatus;
  attempts: number;
  round_attempts: number;
  round: number;
  lease_token: string;
  traceparent: string | null;
}

function toClaim(row: ClaimRow): ClaimedDelivery {
  return {
    id: String(row.id),
    webhookId: row.webhook_id,
    accountId: String(row.account_id),
    eventId: row.event_id,
    eventType: row.event_type,
    occurredAt: new Date(row.occurred_at).toISOString(),
    data: row.data,
    download: row.download,
    links: row.links,
    status: row.status,
    attempts: row.attempts,
    roundAttempts: row.round_attempts,
    round: row.round,
    leaseToken: row.lease_token,
    traceparent: row.traceparent,
  };
}

/** A delivery of a test order's event (`data.testMode`, set by `webhook-payload.ts` from the order's key mode). */
function testEventSql(alias: string): string {
  return `(${alias}.data ->> 'testMode') = 'true'`;
}

/** The deliveries a scope admits (`deliveryScopeOf`): everything, or test orders' events only. */
function scopeSql(scope: DeliveryScope, alias: string): string {
  return scope === 'testEvents' ? testEventSql(alias) : 'TRUE';
}

/** What this replica already runs: attempts in flight per endpoint and per account. */
export interface DispatchLoad {
  byEndpoint: ReadonlyMap<number, number>;
  byAccount: ReadonlyMap<string, number>;
}

/** How many attempts one endpoint, and one account over all its endpoints, may have in flight per replica. */
export interface DispatchShares {
  perEndpoint: number;
  perAccount: number;
}

const CLAIM_COLUMNS = `id, webhook_id, account_id, event_id, event_type, occurred_at, data, download, links, status, attempts,
  round_attempts, round, lease_token, traceparent`;

/**
 * The delivery log and the durable retry queue in one table. Writes what `WebhookDelivery` decides; the claims
 * (due, active endpoint, per-endpoint share, lease) are queries, because SKIP LOCKED needs them in one statement.
 */
@Injectable()
export class WebhookDeliveriesRepository extends TransactionalRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  /** Inserts new deliveries (`WebhookDelivery.enqueue`); a redelivered source event adds nothing (unique per endpoint and event). */
  async insertNew(tx: Transaction, deliveries: readonly NewDelivery[]): Promise<number> {
    if (deliveries.length === 0) {
      return 0;
    }
    const inserted = await this.db(tx)
      .createQueryBuilder()
      .insert()
      .into(WebhookDeliveryEntity)
      // jsonb: TypeORM's deep-partial type does not model free-form JSON.
      .values(
        deliveries.map((delivery) => ({ ...delivery, data: delivery.data as QueryDeepPartialEntity<Record<string, unknown>>, traceparent: currentTraceparent() })),
      )
      .orIgnore()
      .returning(['id'])
      .execute();
    return (inserted.raw as unknown[]).length;
  }

  /**
   * Claims due deliveries of active endpoints (FOR UPDATE SKIP LOCKED, so replicas never take the same one)
   * and leases them. Per endpoint at most `perEndpoint`, and per account at most `perAccount`, minus what this
   * replica already runs there: one slow receiver never takes the slots of the others, and neither does one
   * account with many webhooks and a backlog on each (the oldest due first within each share).
   */
  async claimDue(now: Date, busy: DispatchLoad, shares: DispatchShares, limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) {
      return [];
    }
    const rows = await this.dataSource.query<[ClaimRow[], number]>(
      `WITH due AS (
         SELECT d.id, d.account_id, d.next_attempt_at,
                row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) + coalesce(f.busy, 0) AS endpoint_load
         FROM webhook_delivery d
         JOIN webhook_endpoint e ON e.id = d.webhook_id AND e.is_active
           -- webhookReceives (webhook-mode.ts) once more: a live event is never sent to a test webhook.
           AND (e.mode = 'live' OR ${testEventSql('d')})
         LEFT JOIN unnest($2::int[], $3::int[]) AS f(webhook_id, busy) ON f.webhook_id = d.webhook_id
         WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
       ), endpoint_share AS (
         SELECT due.id, due.next_attempt_at,
                row_number() OVER (PARTITION BY due.account_id ORDER BY due.next_attempt_at, due.id) + coalesce(a.busy, 0) AS account_load
         FROM due
         LEFT JOIN unnest($6::bigint[], $7::int[]) AS a(account_id, busy) ON a.account_id = due.account_id
         WHERE due.endpoint_load <= $4
       ), candidates AS (
         SELECT id FROM endpoint_share
         WHERE account_load <= $8
         ORDER BY next_attempt_at, id
         LIMIT $5
       ), locked AS (
         SELECT d.id FROM webhook_delivery d
         WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'PENDING'
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
         FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_delivery d
       SET lease_token = gen_random_uuid(), lease_expires_at = now() + make_interval(secs => $9)
       FROM locked WHERE d.id = locked.id
       RETURNING ${CLAIM_COLUMNS.split(',').map((column) => `d.${column.trim()}`).join(', ')}`,
      [
        now,
        [...busy.byEndpoint.keys()],
        [...busy.byEndpoint.values()],
        shares.perEndpoint,
        limit,
        [...busy.byAccount.keys()],
        [...busy.byAccount.values()],
        shares.perAccount,
        LEASE_SECONDS,
      ],
    );
    return rows[0].map(toClaim);
  }

  /**
   * Leases one delivery of the endpoint for a manual attempt, whatever its status; null when unknown or outside
   * the scope (a live event for a test key: not found, never sent), 'busy' while an attempt holds it.
   */
  async claimOne(webhookId: number, id: string, scope: DeliveryScope): Promise<ClaimedDelivery | null | 'busy'> {
    const rows = await this.dataSource.query<[ClaimRow[], number]>(
      `UPDATE webhook_delivery d
       SET lease_token = gen_random_uuid(), lease_expires_at = now() + make_interval(secs => $3)
       WHERE d.id = $1 AND d.webhook_id = $2 AND ${scopeSql(scope, 'd')} AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
       RETURNING ${CLAIM_COLUMNS}`,
      [id, webhookId, LEASE_SECONDS],
    );
    const row = rows[0][0];
    if (row) {
      return toClaim(row);
    }
    const exists = await this.dataSource.query<Array<{ exists: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.id = $1 AND d.webhook_id = $2 AND ${scopeSql(scope, 'd')}) AS exists`,
      [id, webhookId],
    );
    return exists[0]?.exists ? 'busy' : null;
  }

  /** Writes an attempt's record (`WebhookDelivery.attempt`) and ends the lease; ignored when the lease was lost (another worker took over). */
  async recordAttempt(claim: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    const result = await this.dataSource.query<[unknown[], number]>(
      `UPDATE webhook_delivery
       SET attempts = attempts + 1,
           round_attempts = round_attempts + $3,
           status = $4,
           next_attempt_at = CASE WHEN $9 THEN next_attempt_at ELSE $5::timestamptz END,
           last_status_code = $6,
           last_error = $7,
           last_attempt_at = $8,
           completed_at = $10,
           lease_token = NULL,
           lease_expires_at = NULL
       WHERE id = $1 AND lease_token = $2
       RETURNING id`,
      [
        claim.id,
        claim.leaseToken,
        record.countsForRound ? 1 : 0,
        record.status,
        record.nextAttemptAt === 'keep' ? null : record.nextAttemptAt,
        record.statusCode,
        record.error,
        record.at,
        record.nextAttemptAt === 'keep',
        record.completedAt,
      ],
    );
    return result[1] > 0;
  }

  /** Gives a lease back without recording an attempt (e.g. the endpoint vanished mid-flight). */
  async release(claim: ClaimedDelivery): Promise<void> {
    await this.dataSource.query('UPDATE webhook_delivery SET lease_token = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_token = $2', [
      claim.id,
      claim.leaseToken,
    ]);
  }

  /** One page of the endpoint's deliveries within the scope, newest first, and how many there are in all. */
  async page(webhookId: number, page: number, limit: number, scope: DeliveryScope, status?: WebhookDeliveryStatus): Promise<[WebhookDeliveryEntity[], number]> {
    const query = this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .createQueryBuilder('d')
      .where('d.webhookId = :webhookId', { webhookId })
      .andWhere(scopeSql(scope, 'd'));
    if (status) {
      query.andWhere('d.status = :status', { status });
    }
    return query
      .orderBy('d.createdAt', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .skip((page - 1) * limit)
      .take(limit)
      .getManyAndCount();
  }

  /**
   * FAILED deliveries within the scope created in [from, to] start the round `WebhookDelivery.newRound` describes
   * (the next one, from its first attempt).
   */
  async requeueFailed(webhookId: number, from: Date, to: Date, round: NewRound, scope: DeliveryScope): Promise<number> {
    const result = await this.dataSource.query<[unknown[], number]>(
      `UPDATE webhook_delivery d
       SET status = $4, round = round + 1, round_attempts = 0, next_attempt_at = $5, completed_at = $6
       WHERE d.webhook_id = $1 AND d.status = 'FAILED' AND d.created_at >= $2 AND d.created_at <= $3 AND ${scopeSql(scope, 'd')}
       RETURNING d.id`,
      [webhookId, from, to, round.status, round.nextAttemptAt, round.completedAt],
    );
    return result[1];
  }

  /**
   * One delivery within the scope starts the round `WebhookDelivery.newRound` describes, whatever its status, unless
   * an attempt holds it: a manual retry for an inactive webhook, sent by the dispatcher once the webhook is active.
   * The event's id, or null when unknown or outside the scope ('busy' while an attempt holds it).
   */
  async requeueOne(webhookId: number, id: string, round: NewRound, scope: DeliveryScope): Promise<{ eventId: string } | null | 'busy'> {
    const rows = await this.dataSource.query<[Array<{ event_id: string }>, number]>(
      `UPDATE webhook_delivery d
       SET status = $3, round = round + 1, round_attempts = 0, next_attempt_at = $4, completed_at = $5
       WHERE d.id = $1 AND d.webhook_id = $2 AND ${scopeSql(scope, 'd')} AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
       RETURNING d.event_id`,
      [id, webhookId, round.status, round.nextAttemptAt, round.completedAt],
    );
    const row = rows[0][0];
    if (row) {
      return { eventId: String(row.event_id) };
    }
    const exists = await this.dataSource.query<Array<{ exists: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.id = $1 AND d.webhook_id = $2 AND ${scopeSql(scope, 'd')}) AS exists`,
      [id, webhookId],
    );
    return exists[0]?.exists ? 'busy' : null;
  }

  /**
   * Deletes every delivery of an order (its payload names the order's files and, for an extract, the recipient);
   * how many. An attempt in flight finds its delivery gone and records nothing (`recordAttempt` answers false).
   */
  async deleteOfOrder(tx: Transaction, orderId: string): Promise<number> {
    const result = await this.db(tx).delete(WebhookDeliveryEntity, { orderId });
    return result.affected ?? 0;
  }

  /**
   * Deletes up to `limit` deliveries in one of `statuses` that ended before `endedBefore`, oldest first; how many.
   * One short statement per batch. SKIP LOCKED leaves rows another statement is changing (a retry, another
   * replica's pruning) to a later batch, and a delivery leased by an attempt in flight is kept until the attempt
   * is recorded.
   */
  async pruneEnded(statuses: readonly WebhookDeliveryStatus[], endedBefore: Date, limit: number): Promise<number> {
    const rows = await this.dataSource.query<Array<{ pruned: string }>>(
      `WITH pruned AS (
         DELETE FROM webhook_delivery WHERE id IN (
           SELECT id FROM webhook_delivery
           WHERE status = ANY($1::text[]) AND completed_at < $2
             AND (lease_expires_at IS NULL OR lease_expires_at <= now())
           ORDER BY completed_at
           LIMIT $3
           FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*) AS pruned FROM pruned`,
      [statuses, endedBefore, limit],
    );
    return Number(rows[0]?.pruned ?? 0);
  }

  /**
   * The oldest delivery waiting to go out, among those `claimDue` may send: a live event queued for a test webhook
   * (by a replica of the previous release, during a rolling update) is never sent, and must not age the metric.
   */
  async oldestPendingCreatedAt(): Promise<Date | null> {
    const rows = await this.dataSource.query<Array<{ oldest: Date | null }>>(
      `SELECT min(d.created_at) AS oldest FROM webhook_delivery d
       JOIN webhook_endpoint e ON e.id = d.webhook_id AND (e.mode = 'live' OR ${testEventSql('d')})
       WHERE d.status = 'PENDING'`,
    );
    return rows[0]?.oldest ? new Date(rows[0].oldest) : null;
  }
}
