import { KeyMode, OutboxMessage } from '@cp/contracts';
import { entityFromJson, entityToJson, IdBlocks, insertJsonRowsSql, rowJsonSql, tableSql, Transaction, TransactionalRepository, updateJsonRowsSql, WriteBatch } from '@cp/database';
import { openSharedJobOfSql, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { currentTraceparent } from '@cp/tracing';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, In, IsNull, LessThan, LessThanOrEqual, Not, ObjectLiteral } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { NewOrderFile, NewOrderState, Order, OrderFileState, OrderOutputState } from '../domain/order';
import { OrderReportEntity } from './order-report.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity } from './order.entity';

/** A new order before it has ids: its fields, its files and its outputs (made once the file ids are known). */
export interface OrderDraft {
  order: Omit<NewOrderState, 'id'>;
  files: Array<Omit<NewOrderFile, 'id'>>;
  outputs: (files: OrderFileState[]) => OrderOutputState[];
}

/** The children of an order as `childrenSql` selects them. */
interface ChildRows {
  files: Array<Record<string, unknown>>;
  outputs: Array<Record<string, unknown>>;
  reports: Array<Record<string, unknown>>;
}

/** The rows of an order as loaded, to write back only what a transition changed. */
interface Snapshot {
  /** Whether the order had ended when loaded or last saved: a save that ends it frees its held jobs. */
  final: boolean;
  order: string;
  files: Map<string, string>;
  outputs: Map<string, string>;
}

/** What transitions change: the columns a save writes (everything else is fixed at creation). */
const ORDER_CHANGES = ['status', 'processingDelayed', 'failureCode', 'packageKey', 'options', 'typeResult', 'completedAt', 'failedAt', 'updatedAt'] as const satisfies ReadonlyArray<keyof OrderEntity>;
const FILE_CHANGES = ['status', 'size'] as const satisfies ReadonlyArray<keyof OrderFileEntity>;
const OUTPUT_CHANGES = ['status', 'objectKey', 'failureCode'] as const satisfies ReadonlyArray<keyof OrderOutputEntity>;

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, source[key]])) as Pick<T, K>;
}

/**
 * Persistence of the order aggregate: loads it (with files, outputs and reports), saves what a transition
 * changed together with its events (outbox) and credit movements (ledger), in the caller's transaction.
 */
/** The order's row as its state: the trace it was created in is tracing's, not the domain's. */
function withoutTrace(order: OrderEntity): OrderEntity {
  const state = { ...order };
  delete state.traceparent;
  return state;
}

/** Where the sweep of lost slot registrations is: an order's creation time as the database keeps it, and its id. */
export interface WaitingOrderCursor {
  /** A timestamptz as text (microseconds kept). */
  createdAt: string;
  id: string;
}

/** An order waiting for its files (pending, or started at once) as the sweep of lost slot registrations reads it. */
export interface WaitingOrderRef {
  id: string;
  accountId: string;
  mode: KeyMode;
  cursor: WaitingOrderCursor;
  awaitingFileId: string | null;
}

@Injectable()
export class OrdersRepository extends TransactionalRepository {
  private readonly snapshots = new WeakMap<Order, Snapshot>();
  /** Order and file ids, a block at a time: creation spends no round trip on them. */
  private readonly ids: IdBlocks<'order' | 'file'>;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly ledger: CreditLedgerRepository,
  ) {
    super();
    const manager = dataSource.manager;
    this.ids = new IdBlocks(dataSource, { order: { table: tableSql(manager, OrderEntity), block: 32 }, file: { table: tableSql(manager, OrderFileEntity), block: 128 } });
  }

  /** One of the caller's orders (of the key's mode), read without a lock. */
  async findOwned(orderId: string, accountId: string, mode: KeyMode): Promise<Order | null> {
    return (await this.findOwnedMany([{ orderId, accountId, mode }]))[0];
  }

  /**
   * The hot read of the API (issue 19): for each wanted order, that order if it belongs to that account and mode,
   * else null, in the wanted order. One statement for the whole batch, each order with its children, one snapshot.
   */
  async findOwnedMany(wanted: Array<{ orderId: string; accountId: string; mode: KeyMode }>): Promise<Array<Order | null>> {
    const manager = this.dataSource.manager;
    const rows = await manager.query<Array<{ n: number; order: Record<string, unknown> } & ChildRows>>(
      `SELECT q.n::int AS n, ${rowJsonSql(manager, OrderEntity, 'o')} AS "order", ${this.childrenSql('o.id')}
         FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS q(id, account_id, mode, n)
         JOIN ${tableSql(manager, OrderEntity)} o ON o.id = q.id AND o.account_id = q.account_id AND o.mode = q.mode`,
      [wanted.map((item) => item.orderId), wanted.map((item) => item.accountId), wanted.map((item) => item.mode)],
    );
    const found: Array<Order | null> = wanted.map(() => null);
    for (const row of rows) {
      found[row.n - 1] = this.aggregate(manager, entityFromJson(manager, OrderEntity, row.order), row);
    }
    return found;
  }

  /** The trace the order was created in (null when tracing was off then), for a later request to continue it. */
  async traceparentOf(tx: Transaction, orderId: string): Promise<string | null> {
    const row = await this.db(tx).findOne(OrderEntity, { select: { id: true, traceparent: true }, where: { id: orderId } });
    return row?.traceparent ?? null;
  }

  /** Loads and row-locks an order for a transition. */
  async lock(tx: Transaction, orderId: string): Promise<Order | null> {
    const order = await this.db(tx).findOne(OrderEntity, { where: { id: orderId }, lock: { mode: 'pessimistic_write' } });
    return order ? this.withChildren(tx, order) : null;
  }

  /** Pending orders created before `deadline`, locked (others' claims skipped), oldest first. */
  async lockPendingCreatedBefore(tx: Transaction, deadline: Date, limit: number): Promise<Order[]> {
    const rows = await this.db(tx).find(OrderEntity, {
      where: { status: 'pending', createdAt: LessThan(deadline) },
      order: { createdAt: 'ASC' },
      take: limit,
      lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
    });
    return this.withChildrenOf(tx, rows);
  }

  /**
   * `inProgress` orders without any progress since `deadline` (stuck: `updatedAt`, which every transition of the
   * order and of its files and outputs sets, see `Order.processingTimedOut`), locked (others' claims skipped: every
   * replica sweeps), least recently changed first. An order whose row changed after this statement's snapshot is
   * re-checked against `deadline` once its lock is taken (read committed), and the transition checks it again.
   *
   * An order with a job still held back by its account's share (`OutboxShare`: the account's earlier jobs of that
   * queue fill it), or sent since `deadline` and not answered yet, is not stuck: it waits for its account's other
   * work, not for a lost job, and a large account's backlog drains at its share whatever the cluster's size. Its
   * time counts from the send (`published_at`); a parked job (never sent) leaves the order to the sweep.
   */
  async lockInProgressUnchangedSince(tx: Transaction, deadline: Date, limit: number): Promise<Order[]> {
    const manager = this.db(tx);
    // The partial index of open shares by order serves the NOT EXISTS.
    const rows = await manager
      .createQueryBuilder(OrderEntity, 'o')
      .where(`o.status = 'inProgress'`)
      .andWhere('o.updatedAt < :deadline', { deadline })
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM ${tableSql(manager, OutboxEventEntity)} j
                      WHERE ${openSharedJobOfSql('j', 'o.id::text')} AND (j.published_at IS NULL OR j.published_at > :deadline))`,
      )
      .orderBy('o.updatedAt', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    return this.withChildrenOf(tx, rows);
  }

  /** Pending v2 orders, locked (others' claims skipped). */
  async lockPendingV2(tx: Transaction, limit: number): Promise<Order[]> {
    const rows = await this.db(tx).find(OrderEntity, {
      where: { status: 'pending', apiVersion: 'v2' },
      order: { createdAt: 'ASC' },
      take: limit,
      lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
    });
    return this.withChildrenOf(tx, rows);
  }

  /**
   * The given orders that are not `expired` yet, locked, with their outputs but not their files or reports (a
   * retention batch holds up to 1000 orders; the expiry transition only changes the order and its outputs).
   */
  async lockForExpiry(tx: Transaction, orderIds: string[]): Promise<Order[]> {
    if (orderIds.length === 0) {
      return [];
    }
    const rows = await this.db(tx)
      .createQueryBuilder(OrderEntity, 'o')
      .where('o.id IN (:...ids)', { ids: orderIds })
      .andWhere(`o.status <> 'expired'`)
      .orderBy('o.id')
      .setLock('pessimistic_write')
      .getMany();
    if (rows.length === 0) {
      return [];
    }
    const outputRows = await this.db(tx).query<Array<{ output: Record<string, unknown> }>>(
      `SELECT ${rowJsonSql(this.db(tx), OrderOutputEntity, 'x')} AS output FROM ${tableSql(this.db(tx), OrderOutputEntity)} x
        WHERE x.order_id = ANY($1::bigint[]) ORDER BY x.input_position, x.output_index`,
      [rows.map((row) => row.id)],
    );
    const outputs = outputRows.map((row) => entityFromJson(this.db(tx), OrderOutputEntity, row.output));
    return rows.map((row) => this.aggregate(this.db(tx), row, { files: [], outputs: [], reports: [] }, outputs.filter((output) => output.orderId === row.id)));
  }

  /**
   * Saves a batch of orders (the expiry of up to 1000) in one statement per table, each row with what its
   * transition changed since it was loaded, with their events and credit movements (refunds of orders that
   * never completed).
   */
  async saveAll(tx: Transaction, orders: readonly Order[], events: readonly OutboxMessage[]): Promise<void> {
    const changed = orders.filter((order) => this.snapshots.get(order)?.order !== JSON.stringify(order.state));
    const outputs = orders.flatMap((order) => {
      const before = this.snapshots.get(order);
      return order.outputs.filter((output) => before?.outputs.get(output.fileId) !== JSON.stringify(output)).map((output) => ({ ...output, orderId: order.id }));
    });
    const files = orders.flatMap((order) => {
      const before = this.snapshots.get(order);
      return order.files.filter((file) => before?.files.get(file.id) !== JSON.stringify(file)).map((file) => ({ ...file, orderId: order.id }));
    });
    await this.updateRows(tx, OrderEntity, ['id'], ORDER_CHANGES, changed.map((order) => order.state));
    await this.updateRows(tx, OrderFileEntity, ['id'], FILE_CHANGES, files);
    await this.updateRows(tx, OrderOutputEntity, ['fileId'], OUTPUT_CHANGES, outputs);
    for (const order of orders) {
      for (const movement of order.takeCreditMovements()) {
        await this.ledger.apply(tx, order.state.accountId, movement.amount, movement.reference, movement.reason);
      }
      await this.releaseJobsOfEnded(tx, order);
      this.snapshots.set(order, this.snapshot(order));
    }
    await this.outbox.addAll(tx, events);
  }

  /**
   * Frees the order's jobs held to its account's share (`OutboxShare`) that `units` name: their results came. A job
   * freed after it was sent no longer counts against the account's share; the relay sends the account's next.
   */
  async releaseJobs(tx: Transaction, orderId: string, units: readonly string[]): Promise<void> {
    await this.outbox.releaseShares(tx, orderId, units);
  }

  /** An order this save ended (completed, failed, expired) frees all its jobs: those still held back are never sent. */
  private async releaseJobsOfEnded(tx: Transaction, order: Order): Promise<void> {
    if (order.isFinal() && this.snapshots.get(order)?.final !== true) {
      await this.outbox.releaseShares(tx, order.id);
    }
  }

  /**
   * Forgets the URLs of the client's own storage that these orders keep: the files' `originalFileUrl`s and a
   * zero-copy anti-AI order's output targets (presigned PUT URLs: credentials to its bucket until they lapse). They
   * served only the fetch and the upload of the results, no view shows them, and an expired order never starts
   * again. The file names stay: the order record (still answered after expiry) lists them.
   */
  async forgetClientUrls(tx: Transaction, orderIds: string[]): Promise<void> {
    if (orderIds.length === 0) {
      return;
    }
    await this.db(tx).update(OrderFileEntity, { orderId: In(orderIds), sourceUrl: Not(IsNull()) }, { sourceUrl: null });
    // Each target keeps its expiry time, so `targets` still says the order was zero-copy.
    await this.db(tx).query(
      `UPDATE ${tableSql(this.db(tx), OrderEntity)} SET options = jsonb_set(options, '{targets}',
         (SELECT jsonb_object_agg(name, target - 'url') FROM jsonb_each(options -> 'targets') AS t(name, target)))
       WHERE id = ANY($1::bigint[]) AND jsonb_typeof(options -> 'targets') = 'object'
         AND EXISTS (SELECT 1 FROM jsonb_each(options -> 'targets') AS t(name, target) WHERE target ? 'url')`,
      [orderIds],
    );
  }

  /** Of `orderIds`, the test orders whose retention period ended by `now` (`expiresAt` ≤ `now`). */
  async testOrdersPastRetention(tx: Transaction, orderIds: string[], now: Date): Promise<string[]> {
    const rows = await this.db(tx).find(OrderEntity, { select: { id: true }, where: { id: In(orderIds), mode: 'test', expiresAt: LessThanOrEqual(now) } });
    return rows.map((row) => row.id);
  }

  /** Of `orderIds`, those that are `expired` now. */
  async expiredAmong(tx: Transaction, orderIds: string[]): Promise<string[]> {
    const rows = await this.db(tx).find(OrderEntity, { select: { id: true }, where: { id: In(orderIds), status: 'expired' } });
    return rows.map((row) => row.id);
  }

  /**
   * A new order built in memory, its ids (order and files) taken from the tables' sequences ahead of use
   * (`IdBlocks`); nothing is written until `insert`, so its first transitions (`created()`, …) run before the one write.
   */
  async newOrder(draft: OrderDraft): Promise<Order> {
    const ids = await this.ids.take({ order: 1, file: draft.files.length });
    return Order.create(
      { ...draft.order, id: ids.order[0] },
      draft.files.map((file, position) => ({ ...file, id: ids.file[position] })),
      draft.outputs,
    );
  }

  /**
   * Writes a new order (from `newOrder`) as its first transitions left it, with their credit movements, their
   * events and what `also` adds (the idempotency record), in one statement: creation is the API's hot write
   * (issue 19), and seven statements had cost it seven round trips.
   */
  async insert(tx: Transaction, order: Order, events: readonly OutboxMessage[], also?: (batch: WriteBatch) => void): Promise<void> {
    const batch = new WriteBatch();
    const rows = <T extends ObjectLiteral>(target: EntityTarget<T>, entities: readonly T[]): void => {
      if (entities.length > 0) {
        const json = JSON.stringify(entities.map((entity) => entityToJson(this.db(tx), target, entity)));
        batch.write(insertJsonRowsSql(this.db(tx), target, batch.param(json, 'jsonb')));
      }
    };
    rows(OrderEntity, [{ ...order.state, traceparent: currentTraceparent() }]);
    rows(OrderFileEntity, order.files.map((file): OrderFileEntity => ({ ...file, orderId: order.id })));
    rows(OrderOutputEntity, order.outputs.map((output): OrderOutputEntity => ({ ...output, orderId: order.id })));
    // One movement per account and statement (see addApply); a new order has at most its charge.
    const [first, ...more] = order.takeCreditMovements();
    if (first) {
      this.ledger.addApply(batch, order.state.accountId, first.amount, first.reference, first.reason);
    }
    this.outbox.addAllTo(batch, tx, events);
    also?.(batch);
    await batch.execute(this.db(tx));
    for (const movement of more) {
      await this.ledger.apply(tx, order.state.accountId, movement.amount, movement.reference, movement.reason);
    }
    this.snapshots.set(order, this.snapshot(order));
  }

  /** Saves what changed since the order was loaded, its credit movements and `events`, in `tx`. */
  async save(tx: Transaction, order: Order, events: readonly OutboxMessage[]): Promise<void> {
    const before = this.snapshots.get(order);
    const { state } = order;
    if (!before || before.order !== JSON.stringify(state)) {
      // TypeORM's deep-partial type cannot follow an open JSON object (options, typeResult); the jsonb columns take them as they are.
      const changes = Object.fromEntries(ORDER_CHANGES.map((column) => [column, state[column]])) as QueryDeepPartialEntity<OrderEntity>;
      await this.db(tx).update(OrderEntity, state.id, changes);
    }
    for (const file of order.files) {
      if (before?.files.get(file.id) !== JSON.stringify(file)) {
        await this.db(tx).update(OrderFileEntity, file.id, pick(file, FILE_CHANGES));
      }
    }
    for (const output of order.outputs) {
      if (before?.outputs.get(output.fileId) !== JSON.stringify(output)) {
        await this.db(tx).update(OrderOutputEntity, output.fileId, pick(output, OUTPUT_CHANGES));
      }
    }
    for (const movement of order.takeCreditMovements()) {
      await this.ledger.apply(tx, state.accountId, movement.amount, movement.reference, movement.reason);
    }
    await this.releaseJobsOfEnded(tx, order);
    await this.outbox.addAll(tx, events);
    this.snapshots.set(order, this.snapshot(order));
  }

  /**
   * Orders waiting for their files created after `after` (by creation time, then id) and at or before `until`, oldest
   * first, each with its first file still awaiting its upload or fetch (null when none is): pending orders, and orders
   * in progress with a file still awaiting (an anti-AI order with URLs starts before its files are fetched). The
   * sweep of registrations lost reads them once each, through the two partial indexes by creation time.
   */
  async waitingCreatedBetween(after: WaitingOrderCursor, until: Date, limit: number): Promise<WaitingOrderRef[]> {
    // The cursor's time goes back as the database wrote it (text, to the microsecond), so no row is read twice or
    // skipped; `created_at >= $1` alone bounds each partial index's range, the rest of the keyset is a filter within
    // it. An order in progress with all its files (any that did not start at once) is left out in the statement, so
    // the busy orders of the window do not fill the batches.
    const rows = await this.dataSource.query<Array<{ id: string; account_id: string; mode: KeyMode; created_at: string; awaiting_file_id: string | null }>>(
      `WITH waiting AS (
         (SELECT o.id, o.account_id, o.mode, o.created_at FROM "order" o
           WHERE o.status = 'pending' AND o.created_at >= $1::timestamptz AND o.created_at <= $3
             AND (o.created_at > $1::timestamptz OR o.id > $2::bigint)
           ORDER BY o.created_at, o.id LIMIT $4)
         UNION ALL
         (SELECT o.id, o.account_id, o.mode, o.created_at FROM "order" o
           WHERE o.status = 'inProgress' AND o.created_at >= $1::timestamptz AND o.created_at <= $3
             AND (o.created_at > $1::timestamptz OR o.id > $2::bigint)
             AND EXISTS (SELECT 1 FROM order_file f WHERE f.order_id = o.id AND f.status = 'awaiting_upload')
           ORDER BY o.created_at, o.id LIMIT $4))
       SELECT w.id::text AS id, w.account_id::text AS account_id, w.mode, w.created_at::text AS created_at, a.file_id AS awaiting_file_id
         FROM (SELECT * FROM waiting ORDER BY created_at, id LIMIT $4) w
         LEFT JOIN LATERAL (SELECT f.id::text AS file_id FROM order_file f WHERE f.order_id = w.id AND f.status = 'awaiting_upload' ORDER BY f.position LIMIT 1) a ON true
        ORDER BY w.created_at, w.id`,
      [after.createdAt, after.id, until, limit],
    );
    return rows.map((row) => ({ id: row.id, accountId: row.account_id, mode: row.mode, cursor: { createdAt: row.created_at, id: row.id }, awaitingFileId: row.awaiting_file_id }));
  }

  /**
   * Orders of an account and key mode created after `since`, and the oldest of them (null when none), through the
   * creation index `idx_order_account`.
   */
  async countCreatedSince(tx: Transaction, accountId: string, mode: KeyMode, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const [row] = await this.db(tx).query<Array<{ n: number; oldest: Date | null }>>(
      `SELECT count(*)::int AS n, min(created_at) AS oldest FROM "order" WHERE account_id = $1 AND mode = $2 AND created_at > $3`,
      [accountId, mode, since],
    );
    return { count: row?.n ?? 0, oldest: row?.oldest ?? null };
  }

  /** Orders created per UTC day (`YYYY-MM-DD` → count) in [from, to), by account and key mode. */
  async countCreatedPerDay(accountId: string, mode: KeyMode, from: Date, to: Date): Promise<Map<string, number>> {
    const rows = await this.dataSource.query<Array<{ day: string; n: number }>>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n FROM "order"
        WHERE account_id = $1 AND mode = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`,
      [accountId, mode, from, to],
    );
    return new Map(rows.map((row) => [row.day, row.n]));
  }

  /** The reports service's latest status of one report (older announcements never overwrite newer ones). */
  async recordReportStatus(tx: Transaction, report: { orderId: string; locale: string; status: string; changedAt: string }): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO order_report (order_id, locale, status, changed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (order_id, locale) DO UPDATE SET status = EXCLUDED.status, changed_at = EXCLUDED.changed_at
       WHERE order_report.changed_at <= EXCLUDED.changed_at`,
      [report.orderId, report.locale, report.status, report.changedAt],
    );
  }

  private async withChildrenOf(tx: Transaction, rows: OrderEntity[]): Promise<Order[]> {
    const orders: Order[] = [];
    for (const row of rows) {
      orders.push(await this.withChildren(tx, row));
    }
    return orders;
  }

  /**
   * The children of an order read after it, in one statement. Not in the statement that locks the order: a
   * row lock waited for re-reads the locked row, but subqueries of the same statement would still see the
   * snapshot taken before the wait (read committed), so children changed by the lock's holder would be stale.
   */
  private async withChildren(tx: Transaction, order: OrderEntity): Promise<Order> {
    const rows = await this.db(tx).query<ChildRows[]>(`SELECT ${this.childrenSql('$1')}`, [order.id]);
    return this.aggregate(this.db(tx), order, rows[0]);
  }

  private aggregate(manager: EntityManager, order: OrderEntity, children: ChildRows, outputs?: OrderOutputEntity[]): Order {
    const aggregate = new Order(
      withoutTrace(order),
      children.files.map((row) => entityFromJson(manager, OrderFileEntity, row)),
      outputs ?? children.outputs.map((row) => entityFromJson(manager, OrderOutputEntity, row)),
      children.reports.map((row) => entityFromJson(manager, OrderReportEntity, row)),
    );
    this.snapshots.set(aggregate, this.snapshot(aggregate));
    return aggregate;
  }

  /** Select-list entries `files`, `outputs` and `reports` of the order whose id is `orderIdSql`, each a JSON array in the aggregate's order. */
  private childrenSql(orderIdSql: string): string {
    const manager = this.dataSource.manager;
    const children = (target: typeof OrderFileEntity | typeof OrderOutputEntity | typeof OrderReportEntity, alias: string, orderBy: string, name: string) =>
      `(SELECT coalesce(json_agg(${rowJsonSql(manager, target, alias)} ORDER BY ${orderBy}), '[]'::json) FROM ${tableSql(manager, target)} ${alias}
         WHERE ${alias}.order_id = ${orderIdSql}) AS ${name}`;
    return [
      children(OrderFileEntity, 'f', 'f.position', 'files'),
      children(OrderOutputEntity, 'x', 'x.input_position, x.output_index', 'outputs'),
      children(OrderReportEntity, 'r', 'r.locale', 'reports'),
    ].join(', ');
  }

  private async updateRows<T extends ObjectLiteral>(tx: Transaction, target: EntityTarget<T>, keys: ReadonlyArray<keyof T & string>, columns: ReadonlyArray<keyof T & string>, entities: readonly T[]): Promise<void> {
    if (entities.length > 0) {
      const json = JSON.stringify(entities.map((entity) => entityToJson(this.db(tx), target, entity)));
      await this.db(tx).query(updateJsonRowsSql(this.db(tx), target, keys, columns, '$1::jsonb'), [json]);
    }
  }

  private snapshot(order: Order): Snapshot {
    return {
      final: order.isFinal(),
      order: JSON.stringify(order.state),
      files: new Map(order.files.map((file) => [file.id, JSON.stringify(file)])),
      outputs: new Map(order.outputs.map((output) => [output.fileId, JSON.stringify(output)])),
    };
  }
}
