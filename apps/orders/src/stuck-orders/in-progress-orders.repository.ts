import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrderEntity } from '../orders/order.entity';

/** How many orders are `inProgress`, and how long the least recently changed one has gone without any progress (`updatedAt`). */
export interface InProgressSummary {
  inProgress: number;
  oldestUnchangedSince: Date | null;
}

/** The figures behind the stuck-order metrics (one statement on the partial index of `inProgress` orders). */
@Injectable()
export class InProgressOrdersRepository extends TransactionalRepository {
  async summary(tx: Transaction): Promise<InProgressSummary> {
    const table = tableSql(this.db(tx), OrderEntity);
    const rows: Array<{ in_progress: number; oldest: Date | null }> = await this.db(tx).query(
      `SELECT count(*)::int AS in_progress, min(updated_at) AS oldest FROM ${table} WHERE status = 'inProgress'`,
    );
    return { inProgress: rows[0]?.in_progress ?? 0, oldestUnchangedSince: rows[0]?.oldest ?? null };
  }
}
