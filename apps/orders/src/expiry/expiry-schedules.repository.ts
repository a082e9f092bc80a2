import { ExpiryScheduleCursor, ExpiryScheduleView, KeyMode } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrderEntity } from '../orders/order.entity';

/** The text form of `expires_at` that every cursor carries: UTC, to the microsecond, so a page starts exactly after the last. */
const UTC_MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** Orders' expiries for the retention service's reconciliation, read through `idx_order_expires` (`expires_at`, `id`). */
@Injectable()
export class ExpirySchedulesRepository extends TransactionalRepository {
  /**
   * Up to `limit` orders whose `expiresAt` is after `after` (by `expiresAt`, then id; from the first order when
   * null) and at most `upTo`, in that order. Every status: an order already `expired` may still have objects when
   * retention lost its schedule, and the sweep's repeat of an expiry is harmless. The row comparison walks the
   * index from the cursor on.
   */
  async expiringBetween(tx: Transaction, after: ExpiryScheduleCursor | null, upTo: string, limit: number): Promise<ExpiryScheduleView[]> {
    const rows = await this.db(tx).query<Array<{ id: string; account_id: string; mode: KeyMode; expires_at: string }>>(
      `SELECT o.id::text AS id, o.account_id::text AS account_id, o.mode,
              to_char(o.expires_at AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS expires_at
         FROM ${tableSql(this.db(tx), OrderEntity)} o
        WHERE (o.expires_at, o.id) > ($1::timestamptz, $2::bigint) AND o.expires_at <= $3::timestamptz
        ORDER BY o.expires_at, o.id
        LIMIT $4`,
      [after?.expiresAt ?? '-infinity', after?.orderId ?? '0', upTo, limit],
    );
    return rows.map((row) => ({ orderId: row.id, accountId: row.account_id, mode: row.mode, expiresAt: row.expires_at }));
  }
}
