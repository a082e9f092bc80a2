import { Transaction, TransactionalRepository } from '@cp/database';
import { KeyMode } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { ExpiryPhase } from './order-expiry.entity';

export interface NewExpiry {
  orderId: string;
  accountId: string;
  expiresAt: Date;
  mode: KeyMode;
}

/** A due schedule row claimed by one sweep until `leasedUntil` (also the lease's identity when recording). */
export interface LeasedExpiry {
  orderId: string;
  accountId: string;
  phase: Exclude<ExpiryPhase, 'done'>;
  mode: KeyMode;
  leasedUntil: Date;
  expiresAt: Date;
  /** A failed order's early deletion: when it is due, and when it was done (null: not yet, or not a failed order). */
  failedPurgeAt: Date | null;
  failedPurgedAt: Date | null;
}

interface LeasedRow {
  order_id: string;
  account_id: string;
  phase: Exclude<ExpiryPhase, 'done'>;
  mode: KeyMode;
  leased_until: Date;
  expires_at: Date;
  failed_purge_at: Date | null;
  failed_purged_at: Date | null;
}

/** TypeORM access to the expiry schedule. Every method is one statement: its own short transaction. */
@Injectable()
export class OrderExpiryRepository extends TransactionalRepository {
  /** The account's schedules, whatever their phase (an account's erasure, once its objects are gone). */
  async deleteOfAccount(tx: Transaction, accountId: string): Promise<number> {
    const [, affected] = await this.db(tx).query<[unknown[], number]>('DELETE FROM order_expiry WHERE account_id = $1', [accountId]);
    return affected;
  }

  /** One order's schedule, whatever its phase (the order's erasure, once its objects are gone). */
  async deleteOfOrder(tx: Transaction, accountId: string, orderId: string): Promise<number> {
    const [, affected] = await this.db(tx).query<[unknown[], number]>('DELETE FROM order_expiry WHERE order_id = $1 AND account_id = $2', [orderId, accountId]);
    return affected;
  }

  /** The first event of an order schedules it; later ones (and redeliveries) change nothing. */
  async schedule(tx: Transaction, expiry: NewExpiry): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, mode)
       VALUES ($1, $2, $3, 'scheduled', $3, NULL, 0, $4)
       ON CONFLICT (order_id) DO NOTHING`,
      [expiry.orderId, expiry.accountId, expiry.expiresAt, expiry.mode],
    );
  }

  /**
   * The order failed: its objects are due at `purgeAt` instead of at `expiresAt` (the sweep deletes them then,
   * `failedPurged`, and the row goes on waiting for its expiry). Inserts the row if no event scheduled it yet.
   * The first purge time stays: a redelivered or later event (handled later, so with a later time) never pushes it
   * back, nor brings back a deletion already done. A row past `scheduled` (the order expired already) is left as it is.
   * `next_check_at` only moves earlier, so a row already due (or leased by a sweep) is not delayed.
   */
  async scheduleFailedPurge(tx: Transaction, expiry: NewExpiry, purgeAt: Date): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, mode, failed_purge_at)
       VALUES ($1, $2, $3, 'scheduled', LEAST($3::timestamptz, $5::timestamptz), NULL, 0, $4, $5)
       ON CONFLICT (order_id) DO UPDATE
         SET failed_purge_at = EXCLUDED.failed_purge_at,
             next_check_at = LEAST(order_expiry.next_check_at, EXCLUDED.failed_purge_at)
       WHERE order_expiry.phase = 'scheduled' AND order_expiry.failed_purge_at IS NULL`,
      [expiry.orderId, expiry.accountId, expiry.expiresAt, expiry.mode, purgeAt],
    );
  }

  /**
   * The reconciliation's page: schedules the orders that have no row yet (their status events never came), due
   * from their `expiresAt`; returns their ids. Existing rows, whatever their phase (already purged or done), are
   * left exactly as they are, so a schedule is never restarted. One statement.
   */
  async scheduleMissing(tx: Transaction, expiries: NewExpiry[]): Promise<string[]> {
    if (expiries.length === 0) {
      return [];
    }
    const rows = await this.db(tx).query<Array<{ order_id: string }>>(
      `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, mode)
       SELECT d.order_id, d.account_id, d.expires_at, 'scheduled', d.expires_at, NULL, 0, d.mode
         FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::text[]) AS d(order_id, account_id, expires_at, mode)
       ON CONFLICT (order_id) DO NOTHING
       RETURNING order_id::text AS order_id`,
      [expiries.map((expiry) => expiry.orderId), expiries.map((expiry) => expiry.accountId), expiries.map((expiry) => expiry.expiresAt), expiries.map((expiry) => expiry.mode)],
    );
    return rows.map((row) => row.order_id);
  }

  /**
   * The reconciliation of failed orders' page: failed orders whose `failed` status event never brought the deletion
   * of their objects forward get it now, due at `purgeAt`, as `scheduleFailedPurge` would have done (rows inserted
   * when missing, due at the earlier of `expiresAt` and `purgeAt`). Rows that already have a purge time, or that are
   * past `scheduled` (the order expired), are left exactly as they are. Returns the ids it scheduled. One statement.
   */
  async scheduleMissedFailedPurges(tx: Transaction, expiries: Array<NewExpiry & { purgeAt: Date }>): Promise<string[]> {
    if (expiries.length === 0) {
      return [];
    }
    const rows = await this.db(tx).query<Array<{ order_id: string }>>(
      `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, mode, failed_purge_at)
       SELECT d.order_id, d.account_id, d.expires_at, 'scheduled', LEAST(d.expires_at, d.purge_at), NULL, 0, d.mode, d.purge_at
         FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[], $4::text[], $5::timestamptz[]) AS d(order_id, account_id, expires_at, mode, purge_at)
       ON CONFLICT (order_id) DO UPDATE
         SET failed_purge_at = EXCLUDED.failed_purge_at,
             next_check_at = LEAST(order_expiry.next_check_at, EXCLUDED.failed_purge_at)
       WHERE order_expiry.phase = 'scheduled' AND order_expiry.failed_purge_at IS NULL
       RETURNING order_id::text AS order_id`,
      [
        expiries.map((expiry) => expiry.orderId),
        expiries.map((expiry) => expiry.accountId),
        expiries.map((expiry) => expiry.expiresAt),
        expiries.map((expiry) => expiry.mode),
        expiries.map((expiry) => expiry.purgeAt),
      ],
    );
    return rows.map((row) => row.order_id);
  }

  /**
   * Claims the next due batch, oldest first, with a lease until `leasedUntil`: SKIP LOCKED lets replicas
   * share the work, and the row locks last only for this statement. Rows whose lease has run out (their
   * sweeper crashed) are due again.
   */
  async claimDue(tx: Transaction, now: Date, limit: number, leasedUntil: Date): Promise<LeasedExpiry[]> {
    const rows = await this.db(tx).query<[LeasedRow[], number]>(
      `UPDATE order_expiry AS e SET leased_until = $3
         FROM (SELECT order_id FROM order_expiry
                WHERE phase <> 'done' AND next_check_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
                ORDER BY next_check_at, order_id
                LIMIT $2
                FOR UPDATE SKIP LOCKED) AS due
        WHERE e.order_id = due.order_id
        RETURNING e.order_id, e.account_id, e.phase, e.mode, e.leased_until, e.expires_at, e.failed_purge_at, e.failed_purged_at`,
      [now, limit, leasedUntil],
    );
    return rows[0].map((row) => ({
      orderId: String(row.order_id),
      accountId: String(row.account_id),
      phase: row.phase,
      mode: row.mode,
      leasedUntil: row.leased_until,
      expiresAt: row.expires_at,
      failedPurgeAt: row.failed_purge_at,
      failedPurgedAt: row.failed_purged_at,
    }));
  }

  /**
   * First pass done: recheck the prefix later. Second pass done: finished. Only rows still under this
   * sweep's lease are written (a sweep that outlived its lease leaves the row to whoever claimed it since).
   */
  async purged(tx: Transaction, rows: Array<{ expiry: LeasedExpiry; deleted: number }>, now: Date, recheckMs: number): Promise<void> {
    const first = rows.filter((row) => row.expiry.phase === 'scheduled');
    const second = rows.filter((row) => row.expiry.phase === 'purged');
    if (first.length > 0) {
      await this.db(tx).query(
        `UPDATE order_expiry AS e SET phase = 'purged', purged_at = $1, next_check_at = $2, objects_deleted = e.objects_deleted + d.n, leased_until = NULL
           FROM unnest($3::bigint[], $4::int[], $5::timestamptz[]) AS d(order_id, n, lease)
          WHERE e.order_id = d.order_id AND e.leased_until = d.lease`,
        [now, new Date(now.getTime() + recheckMs), ...this.columns(first)],
      );
    }
    if (second.length > 0) {
      await this.db(tx).query(
        `UPDATE order_expiry AS e SET phase = 'done', objects_deleted = e.objects_deleted + d.n, leased_until = NULL
           FROM unnest($1::bigint[], $2::int[], $3::timestamptz[]) AS d(order_id, n, lease)
          WHERE e.order_id = d.order_id AND e.leased_until = d.lease`,
        this.columns(second),
      );
    }
  }

  /**
   * A failed order's objects were deleted before its expiry: the row records it and waits, still `scheduled`, for
   * `expiresAt`, when orders expires the order as any other and its prefix is listed again (an object written since,
   * e.g. by a job that ran late, goes then). Only rows still under this sweep's lease are written.
   */
  async failedPurged(tx: Transaction, rows: Array<{ expiry: LeasedExpiry; deleted: number }>, now: Date): Promise<void> {
    if (rows.length > 0) {
      await this.db(tx).query(
        `UPDATE order_expiry AS e SET failed_purged_at = $1, next_check_at = e.expires_at, objects_deleted = e.objects_deleted + d.n, leased_until = NULL
           FROM unnest($2::bigint[], $3::int[], $4::timestamptz[]) AS d(order_id, n, lease)
          WHERE e.order_id = d.order_id AND e.leased_until = d.lease AND e.phase = 'scheduled'`,
        [now, ...this.columns(rows)],
      );
    }
  }

  /**
   * Not finished this time (orders did not expire it, or some objects could not be deleted): the row stays
   * in its phase and is due again at `until`; its lease ends.
   */
  async postpone(tx: Transaction, expiries: LeasedExpiry[], until: Date): Promise<void> {
    if (expiries.length > 0) {
      await this.db(tx).query(
        `UPDATE order_expiry AS e SET next_check_at = $1, leased_until = NULL
           FROM unnest($2::bigint[], $3::timestamptz[]) AS d(order_id, lease)
          WHERE e.order_id = d.order_id AND e.leased_until = d.lease`,
        [until, expiries.map((expiry) => expiry.orderId), expiries.map((expiry) => expiry.leasedUntil)],
      );
    }
  }

  /** Gives claimed rows back unchanged (the sweep failed before it could do anything with them). */
  async release(tx: Transaction, expiries: LeasedExpiry[]): Promise<void> {
    if (expiries.length > 0) {
      await this.db(tx).query(
        `UPDATE order_expiry AS e SET leased_until = NULL
           FROM unnest($1::bigint[], $2::timestamptz[]) AS d(order_id, lease)
          WHERE e.order_id = d.order_id AND e.leased_until = d.lease`,
        [expiries.map((expiry) => expiry.orderId), expiries.map((expiry) => expiry.leasedUntil)],
      );
    }
  }

  private columns(rows: Array<{ expiry: LeasedExpiry; deleted: number }>): [string[], number[], Date[]] {
    return [rows.map((row) => row.expiry.orderId), rows.map((row) => row.deleted), rows.map((row) => row.expiry.leasedUntil)];
  }
}
