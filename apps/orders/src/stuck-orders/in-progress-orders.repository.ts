import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { openSharedJobOfSql, OutboxEventEntity } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { OrderEntity } from '../orders/order.entity';

/** How many orders are `inProgress`, and how long the least recently changed one has gone without any progress (`updatedAt`). */
export interface InProgressSummary {
  inProgress: number;
  oldestUnchangedSince: Date | null;
}

/**
 * The figures behind the stuck-order metrics: one statement on the partial index of `inProgress` orders, with the
 * stuck-order sweep's rule (`OrdersRepository.lockInProgressUnchangedSince`): an order with a job held back by its
 * account's share waits its turn and is left out, and one whose job was sent after its last change counts from the
 * send. Otherwise an account's backlog at its share would raise the stuck-order alert for orders that are only
 * waiting, hours before anything is wrong.
 */
@Injectable()
export class InProgressOrdersRepository extends TransactionalRepository {
  async summary(tx: Transaction): Promise<InProgressSummary> {
    const table = tableSql(this.db(tx), OrderEntity);
    const outbox = tableSql(this.db(tx), OutboxEventEntity);
    // One probe of the partial index of open shares by order per order in progress.
    const rows: Array<{ in_progress: number; oldest: Date | null }> = await this.db(tx).query(
      `SELECT count(*)::int AS in_progress,
              min(GREATEST(o.updated_at, coalesce(jobs.sent, o.updated_at))) FILTER (WHERE jobs.held IS NOT TRUE) AS oldest
         FROM ${table} o
         LEFT JOIN LATERAL (
           SELECT max(j.published_at) AS sent, bool_or(j.published_at IS NULL) AS held FROM ${outbox} j
            WHERE ${openSharedJobOfSql('j', 'o.id::text')}) jobs ON true
        WHERE o.status = 'inProgress'`,
    );
    return { inProgress: rows[0]?.in_progress ?? 0, oldestUnchangedSince: rows[0]?.oldest ?? null };
  }
}
