import { FailedOrderCursor } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';

/** The one source reconciled: orders, the owner of every order's `failedAt`. */
const SOURCE = 'orders';

/** The cursor's time as `orders.failed-orders` writes it (UTC, to the microsecond), so it goes back exactly. */
const UTC_MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** The reconciliation of failed orders claimed by one replica until `leasedUntil` (also the lease's identity). */
export interface FailedOrderLease {
  /** null: nothing read yet, the walk starts at the oldest failed order. */
  after: FailedOrderCursor | null;
  leasedUntil: Date;
}

interface LeaseRow {
  after_failed_at: string | null;
  after_order_id: string | null;
  leased_until: Date;
}

/**
 * TypeORM access to the cursor and lease of the reconciliation of failed orders (one row), with the rules of
 * `ScheduleReconciliationRepository`: one replica reads a page at a time, the cursor moves only forward and only
 * under the lease that read the page. Every method is one statement.
 */
@Injectable()
export class FailedOrderReconciliationRepository extends TransactionalRepository {
  /** Takes the lease unless another replica holds one that has not run out (a crashed holder's lease runs out). */
  async claim(tx: Transaction, now: Date, leasedUntil: Date): Promise<FailedOrderLease | null> {
    const [rows] = await this.db(tx).query<[LeaseRow[], number]>(
      `UPDATE failed_order_reconciliation SET leased_until = $3
        WHERE source = $1 AND (leased_until IS NULL OR leased_until <= $2)
        RETURNING to_char(after_failed_at AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS after_failed_at, after_order_id::text AS after_order_id, leased_until`,
      [SOURCE, now, leasedUntil],
    );
    const row = rows[0];
    if (!row) {
      return null;
    }
    const after = row.after_failed_at !== null && row.after_order_id !== null ? { failedAt: row.after_failed_at, orderId: row.after_order_id } : null;
    return { after, leasedUntil: row.leased_until };
  }

  /**
   * Moves the cursor to `to` and ends the lease, in the transaction that scheduled the page's deletions, so the
   * cursor never passes an order whose schedule did not commit. Only under this lease, and only forward: false when refused.
   */
  async advance(tx: Transaction, lease: FailedOrderLease, to: FailedOrderCursor, reconciled: number, now: Date): Promise<boolean> {
    const [, count] = await this.db(tx).query<[unknown[], number]>(
      `UPDATE failed_order_reconciliation
          SET after_failed_at = $2::timestamptz, after_order_id = $3::bigint, leased_until = NULL,
              rows_reconciled = rows_reconciled + $4, advanced_at = $5
        WHERE source = $1 AND leased_until = $6
          AND (after_failed_at IS NULL OR (after_failed_at, after_order_id) < ($2::timestamptz, $3::bigint))`,
      [SOURCE, to.failedAt, to.orderId, reconciled, now, lease.leasedUntil],
    );
    return count === 1;
  }

  /** Ends the lease without moving the cursor (nothing new to read, or the page failed). */
  async release(tx: Transaction, lease: FailedOrderLease): Promise<void> {
    await this.db(tx).query(`UPDATE failed_order_reconciliation SET leased_until = NULL WHERE source = $1 AND leased_until = $2`, [SOURCE, lease.leasedUntil]);
  }
}
