import { ExpiryScheduleCursor } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';

/** The one source reconciled so far: orders, the owner of every order's `expiresAt`. */
const SOURCE = 'orders';

/** The cursor's time as `orders.expiry-schedules` writes it (UTC, to the microsecond), so it goes back exactly. */
const UTC_MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** The reconciliation claimed by one replica until `leasedUntil` (also the lease's identity when it writes). */
export interface ReconciliationLease {
  /** null: nothing read yet, the walk starts at the oldest order. */
  after: ExpiryScheduleCursor | null;
  leasedUntil: Date;
}

interface LeaseRow {
  after_expires_at: string | null;
  after_order_id: string | null;
  leased_until: Date;
}

/** TypeORM access to the reconciliation's cursor and lease (one row). Every method is one statement. */
@Injectable()
export class ScheduleReconciliationRepository extends TransactionalRepository {
  /**
   * Takes the lease unless another replica holds one that has not run out: one replica reads a page at a time, so
   * replicas do not read the same pages of orders twice. A lease whose holder crashed runs out.
   */
  async claim(tx: Transaction, now: Date, leasedUntil: Date): Promise<ReconciliationLease | null> {
    const [rows] = await this.db(tx).query<[LeaseRow[], number]>(
      `UPDATE schedule_reconciliation SET leased_until = $3
        WHERE source = $1 AND (leased_until IS NULL OR leased_until <= $2)
        RETURNING to_char(after_expires_at AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS after_expires_at, after_order_id::text AS after_order_id, leased_until`,
      [SOURCE, now, leasedUntil],
    );
    const row = rows[0];
    if (!row) {
      return null;
    }
    const after = row.after_expires_at !== null && row.after_order_id !== null ? { expiresAt: row.after_expires_at, orderId: row.after_order_id } : null;
    return { after, leasedUntil: row.leased_until };
  }

  /**
   * Moves the cursor to `to` and ends the lease, in the transaction that inserted the page's schedules, so the
   * cursor never passes an order whose schedule did not commit. Only under this lease, and only forward (a replica
   * that outlived its lease never moves the cursor back over pages another has read since): false when refused.
   */
  async advance(tx: Transaction, lease: ReconciliationLease, to: ExpiryScheduleCursor, reconciled: number, now: Date): Promise<boolean> {
    const [, count] = await this.db(tx).query<[unknown[], number]>(
      `UPDATE schedule_reconciliation
          SET after_expires_at = $2::timestamptz, after_order_id = $3::bigint, leased_until = NULL,
              rows_reconciled = rows_reconciled + $4, advanced_at = $5
        WHERE source = $1 AND leased_until = $6
          AND (after_expires_at IS NULL OR (after_expires_at, after_order_id) < ($2::timestamptz, $3::bigint))`,
      [SOURCE, to.expiresAt, to.orderId, reconciled, now, lease.leasedUntil],
    );
    return count === 1;
  }

  /** Ends the lease without moving the cursor (nothing new to read, or the page failed). */
  async release(tx: Transaction, lease: ReconciliationLease): Promise<void> {
    await this.db(tx).query(`UPDATE schedule_reconciliation SET leased_until = NULL WHERE source = $1 AND leased_until = $2`, [SOURCE, lease.leasedUntil]);
  }
}
