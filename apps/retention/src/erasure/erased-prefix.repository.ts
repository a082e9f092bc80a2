import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';

/** An erased prefix claimed by one look until `leasedUntil` (also the lease's identity when recording). */
export interface LeasedErasedPrefix {
  prefix: string;
  recheckAt: Date;
  finalRecheckAt: Date;
  leasedUntil: Date;
}

interface LeasedRow {
  prefix: string;
  recheck_at: Date;
  final_recheck_at: Date;
  leased_until: Date;
}

/** TypeORM access to the erased prefixes (`ErasedPrefixEntity`). Every method is one statement. */
@Injectable()
export class ErasedPrefixRepository extends TransactionalRepository {
  /**
   * Records an erased prefix, in the erasure's transaction. A repeated erasure (a redelivery, or the account of an
   * order erased before) keeps the earlier next look and the later last one, so no look is ever put off or lost.
   */
  async record(tx: Transaction, prefix: string, recheckAt: Date, finalRecheckAt: Date): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO erased_prefix (prefix, recheck_at, final_recheck_at) VALUES ($1, $2, $3)
       ON CONFLICT (prefix) DO UPDATE SET recheck_at = LEAST(erased_prefix.recheck_at, EXCLUDED.recheck_at),
                                          final_recheck_at = GREATEST(erased_prefix.final_recheck_at, EXCLUDED.final_recheck_at)`,
      [prefix, recheckAt, finalRecheckAt],
    );
  }

  /** Claims the due prefixes, oldest first, as the sweep claims schedules (SKIP LOCKED; a lapsed lease is due again). */
  async claimDue(tx: Transaction, now: Date, limit: number, leasedUntil: Date): Promise<LeasedErasedPrefix[]> {
    const rows = await this.db(tx).query<[LeasedRow[], number]>(
      `UPDATE erased_prefix AS p SET leased_until = $3
         FROM (SELECT prefix FROM erased_prefix
                WHERE recheck_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
                ORDER BY recheck_at, prefix
                LIMIT $2
                FOR UPDATE SKIP LOCKED) AS due
        WHERE p.prefix = due.prefix
        RETURNING p.prefix, p.recheck_at, p.final_recheck_at, p.leased_until`,
      [now, limit, leasedUntil],
    );
    return rows[0].map((row) => ({ prefix: row.prefix, recheckAt: row.recheck_at, finalRecheckAt: row.final_recheck_at, leasedUntil: row.leased_until }));
  }

  /**
   * A look left the prefix empty: looked at again at `nextAt`, or forgotten when null. Only a row still under this
   * look's lease is written (one that outlived its lease leaves the row to whoever claimed it since).
   */
  async looked(tx: Transaction, claimed: LeasedErasedPrefix, deleted: number, nextAt: Date | null): Promise<void> {
    if (nextAt === null) {
      await this.db(tx).query('DELETE FROM erased_prefix WHERE prefix = $1 AND leased_until = $2', [claimed.prefix, claimed.leasedUntil]);
      return;
    }
    await this.db(tx).query(
      'UPDATE erased_prefix SET recheck_at = $3, leased_until = NULL, objects_deleted = objects_deleted + $4 WHERE prefix = $1 AND leased_until = $2',
      [claimed.prefix, claimed.leasedUntil, nextAt, deleted],
    );
  }
}
