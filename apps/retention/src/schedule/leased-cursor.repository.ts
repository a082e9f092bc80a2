import { Transaction, TransactionalRepository } from '@cp/database';

/** The one source reconciled: orders, the owner of every order's times the walks read. */
const SOURCE = 'orders';

/** The cursor's time as orders' page RPCs write it (UTC, to the microsecond), so it goes back exactly. */
const UTC_MICROSECONDS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A walk claimed by one replica until `leasedUntil` (also the lease's identity when it writes). */
export interface CursorLease<TCursor> {
  /** null: nothing read yet, the walk starts at the oldest order. */
  after: TCursor | null;
  leasedUntil: Date;
}

/**
 * Where one walk's cursor lives: its table (a `LeasedCursorEntity`), the column of the cursor's time, and how that
 * time maps to the cursor's field in the orders RPC (`expiresAt`, `failedAt`). Constants of the subclass, never input:
 * they are written into the statements.
 */
export interface LeasedCursorTable<TCursor> {
  table: string;
  timeColumn: string;
  cursor: (time: string, orderId: string) => TCursor;
  timeOf: (cursor: TCursor) => string;
}

interface LeaseRow {
  after_at: string | null;
  after_order_id: string | null;
  leased_until: Date;
}

/**
 * TypeORM access to the cursor and lease of one walk of orders by (time, `orderId`) (one row, `source` 'orders').
 * One replica reads a page at a time, and the cursor moves only forward and only under the lease that read the page.
 * Every method is one statement. Each walk keeps its own table (`schedule_reconciliation` was released before the
 * second walk came; the operators' queries name both), so a subclass only names its table and time column.
 */
export abstract class LeasedCursorRepository<TCursor extends { orderId: string }> extends TransactionalRepository {
  protected constructor(private readonly where: LeasedCursorTable<TCursor>) {
    super();
  }

  /**
   * Takes the lease unless another replica holds one that has not run out: one replica reads a page at a time, so
   * replicas do not read the same pages of orders twice. A lease whose holder crashed runs out.
   */
  async claim(tx: Transaction, now: Date, leasedUntil: Date): Promise<CursorLease<TCursor> | null> {
    const { table, timeColumn } = this.where;
    const [rows] = await this.db(tx).query<[LeaseRow[], number]>(
      `UPDATE ${table} SET leased_until = $3
        WHERE source = $1 AND (leased_until IS NULL OR leased_until <= $2)
        RETURNING to_char(${timeColumn} AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS after_at, after_order_id::text AS after_order_id, leased_until`,
      [SOURCE, now, leasedUntil],
    );
    const row = rows[0];
    if (!row) {
      return null;
    }
    const after = row.after_at !== null && row.after_order_id !== null ? this.where.cursor(row.after_at, row.after_order_id) : null;
    return { after, leasedUntil: row.leased_until };
  }

  /**
   * Moves the cursor to `to` and ends the lease, in the transaction that applied the page, so the cursor never passes
   * an order whose effect did not commit. Only under this lease, and only forward (a replica that outlived its lease
   * never moves the cursor back over pages another has read since): false when refused.
   */
  async advance(tx: Transaction, lease: CursorLease<TCursor>, to: TCursor, reconciled: number, now: Date): Promise<boolean> {
    const { table, timeColumn } = this.where;
    const [, count] = await this.db(tx).query<[unknown[], number]>(
      `UPDATE ${table}
          SET ${timeColumn} = $2::timestamptz, after_order_id = $3::bigint, leased_until = NULL,
              rows_reconciled = rows_reconciled + $4, advanced_at = $5
        WHERE source = $1 AND leased_until = $6
          AND (${timeColumn} IS NULL OR (${timeColumn}, after_order_id) < ($2::timestamptz, $3::bigint))`,
      [SOURCE, this.where.timeOf(to), to.orderId, reconciled, now, lease.leasedUntil],
    );
    return count === 1;
  }

  /** Ends the lease without moving the cursor (nothing new to read, or the page failed). */
  async release(tx: Transaction, lease: CursorLease<TCursor>): Promise<void> {
    await this.db(tx).query(`UPDATE ${this.where.table} SET leased_until = NULL WHERE source = $1 AND leased_until = $2`, [SOURCE, lease.leasedUntil]);
  }
}
