import { FailedOrderCursor, FailedOrderView, KeyMode } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrderEntity } from '../orders/order.entity';

/** The text form of the timestamps every cursor carries: UTC, to the microsecond, so a page starts exactly after the last. */
const UTC_MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** Orders that failed, for the retention service's reconciliation of failed orders, read through `idx_order_failed`. */
@Injectable()
export class FailedOrdersRepository extends TransactionalRepository {
  /**
   * Up to `limit` orders whose `failedAt` is after `after` (by `failedAt`, then id; from the first when null) and at
   * most `upTo`, in that order. Whatever their status now: a failed order later expires, and `failedAt` stays. The
   * row comparison walks the partial index (`failed_at`, `id`) from the cursor on.
   */
  async failedBetween(tx: Transaction, after: FailedOrderCursor | null, upTo: string, limit: number): Promise<FailedOrderView[]> {
    const rows = await this.db(tx).query<Array<{ id: string; account_id: string; mode: KeyMode; expires_at: string; failed_at: string }>>(
      `SELECT o.id::text AS id, o.account_id::text AS account_id, o.mode,
              to_char(o.expires_at AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS expires_at,
              to_char(o.failed_at AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS failed_at
         FROM ${tableSql(this.db(tx), OrderEntity)} o
        WHERE o.failed_at IS NOT NULL AND (o.failed_at, o.id) > ($1::timestamptz, $2::bigint) AND o.failed_at <= $3::timestamptz
        ORDER BY o.failed_at, o.id
        LIMIT $4`,
      [after?.failedAt ?? '-infinity', after?.orderId ?? '0', upTo, limit],
    );
    return rows.map((row) => ({ orderId: row.id, accountId: row.account_id, mode: row.mode, expiresAt: row.expires_at, failedAt: row.failed_at }));
  }
}
