import { Clock } from '@cp/clock';
import { EventEnvelope, MessageContract, OutboxMessage, OutboxShare } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository, WriteBatch } from '@cp/database';
import { currentTraceparent } from '@cp/tracing';
import { Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity';

/**
 * Tells this process's outbox relay that rows were committed (issue 32): the writer marks the transaction that
 * wrote outbox rows, and once that transaction commits (not a savepoint: the outermost COMMIT) the listeners
 * run. A write outside a transaction signals once its statement succeeded. Other replicas learn of the rows
 * through the table's NOTIFY trigger; this signal only saves the local relay that round trip.
 *
 * The same commit also sends that NOTIFY, and this process's own relay listens for it too: without a filter it
 * would be woken twice per commit, the second time for a pass whose claim query finds nothing (what the relay
 * just published). The signal therefore knows the PostgreSQL backends of its data source's pool (pg's pool
 * reports each connection it lends and each it closes) and `sentByThisProcess` tells the listener which
 * notifications it has already been told about in-process. Every outbox row this process writes goes through
 * `OutboxWriter`, which signals, so a notification from one of its own backends never carries news.
 */
export class OutboxCommitSignal {
  private readonly listeners = new Set<() => void>();
  private readonly pending = new WeakSet<QueryRunner>();
  /** Backend process ids of the pool's open connections. */
  private readonly backends = new Set<number>();

  /** A signal fed by `dataSource`'s transactions (a TypeORM subscriber on it) and aware of its pool's backends. */
  static on(dataSource: DataSource): OutboxCommitSignal {
    const signal = new OutboxCommitSignal();
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => signal.committed(event.queryRunner),
      afterTransactionRollback: (event: TransactionRollbackEvent) => signal.rolledBack(event.queryRunner),
    };
    dataSource.subscribers.push(subscriber);
    signal.watchPool(dataSource);
    return signal;
  }

  /**
   * Whether the notification of backend `processId` announced a commit of this process, which has signalled
   * it already. A connection is known from the first time the pool lends it (before any statement runs on it)
   * until the pool has closed it; a pid the server hands to another session after that is not mistaken for ours.
   */
  sentByThisProcess(processId: number): boolean {
    return this.backends.has(processId);
  }

  /** Calls `listener` after each commit of outbox rows; returns the function that removes it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Outbox rows were written through `manager`: signal now if that was outside a transaction, else at its commit. */
  written(manager: EntityManager): void {
    const runner = manager.queryRunner;
    if (runner?.isTransactionActive) {
      this.pending.add(runner);
    } else {
      this.emit();
    }
  }

  private committed(runner: QueryRunner): void {
    // A released savepoint keeps the transaction open: the rows are not visible yet.
    if (!runner.isTransactionActive && this.pending.delete(runner)) {
      this.emit();
    }
  }

  private rolledBack(runner: QueryRunner): void {
    if (!runner.isTransactionActive) {
      this.pending.delete(runner);
    }
  }

  private watchPool(dataSource: DataSource): void {
    // TypeORM's PostgreSQL driver keeps pg's pool as `master` (an untyped field); other drivers have none.
    const pool = (dataSource.driver as { master?: unknown }).master as PoolEvents | undefined;
    if (typeof pool?.on !== 'function') {
      return;
    }
    pool.on('acquire', (client) => {
      if (typeof client.processID === 'number') {
        this.backends.add(client.processID);
      }
    });
    pool.on('remove', (client) => {
      if (typeof client.processID === 'number') {
        this.backends.delete(client.processID);
      }
    });
  }

  private emit(): void {
    this.listeners.forEach((listener) => listener());
  }
}

/** The two events of pg's pool the signal follows; `processID` is the backend's pid (set at connect, untyped in @types/pg). */
interface PoolEvents {
  on(event: 'acquire' | 'remove', listener: (client: { processID?: number | null }) => void): void;
}

/**
 * SQL condition: row `job` of the outbox is a job of order `orderId` (an SQL expression of its id as text) still held
 * to its account's share, waiting or sent and not yet freed, and not parked: the rows the share counts. The stuck-order
 * sweep and its metric read an order's waiting through it (the partial index of open shares by order serves it).
 */
export function openSharedJobOfSql(job: string, orderId: string): string {
  return `${job}.share_order = ${orderId} AND ${job}.share_key IS NOT NULL AND ${job}.share_released_at IS NULL AND ${job}.parked_at IS NULL`;
}

/**
 * Records an event or job inside the caller's transaction, so it exists if and only if the state change
 * committed. The relay publishes it afterwards with `Nats-Msg-Id` = `eventId`. Only declared contracts
 * (`Events.*`, `Jobs.*` of `@cp/contracts`) are accepted, so the payload type is checked.
 */
@Injectable()
export class OutboxWriter extends TransactionalRepository {
  constructor(
    private readonly clock: Clock,
    /** Absent in tools that write rows for a service running elsewhere (its relay learns through NOTIFY). */
    @Optional() private readonly commits?: OutboxCommitSignal,
  ) {
    super();
  }

  async add<TData extends object>(
    tx: Transaction,
    contract: MessageContract<TData>,
    data: TData,
    eventId: string = randomUUID(),
  ): Promise<EventEnvelope<TData>> {
    const envelope: EventEnvelope<TData> = { eventId, subject: contract.subject, occurredAt: this.clock.now().toISOString(), data };
    const batch = new WriteBatch();
    this.writeEnvelopes(batch, this.db(tx), [envelope]);
    await batch.execute(this.db(tx));
    return envelope;
  }

  /** Records messages made by a domain transition, in order, in one statement. */
  async addAll(tx: Transaction, messages: readonly OutboxMessage[]): Promise<void> {
    const batch = new WriteBatch();
    this.addAllTo(batch, tx, messages);
    await batch.execute(this.db(tx));
  }

  /**
   * Adds the insert of `messages` (in order: `seq` follows the array) to a statement of several writes; the
   * envelopes are made now, as `add` makes them.
   */
  addAllTo(batch: WriteBatch, tx: Transaction, messages: readonly OutboxMessage[]): void {
    if (messages.length === 0) {
      return;
    }
    const occurredAt = this.clock.now().toISOString();
    this.writeEnvelopes(
      batch,
      this.db(tx),
      messages.map((item) => ({ eventId: randomUUID(), subject: item.contract.subject, occurredAt, data: item.payload })),
      messages.map((item) => item.share),
    );
  }

  /**
   * Frees held jobs (`OutboxShare`): those of `order` whose unit is one of `units`, or every one of the order when
   * `units` is absent (the order ended). A freed job that was sent no longer counts against its account's share; one
   * still held back is never sent. The local relay is woken at the commit, since the rows it may now send are there.
   */
  async releaseShares(tx: Transaction, order: string, units?: readonly string[]): Promise<void> {
    const manager = this.db(tx);
    const table = tableSql(manager, OutboxEventEntity);
    // The partial index of open shares by order: only this order's counted or waiting rows are read.
    // TypeORM answers an UPDATE with [rows, affected].
    const [, released] = await manager.query<[unknown[], number]>(
      `UPDATE ${table} SET share_released_at = now()
        WHERE share_order = $1 AND share_key IS NOT NULL AND share_released_at IS NULL AND ($2::text[] IS NULL OR share_unit = ANY($2::text[]))`,
      [order, units ? [...units] : null],
    );
    if (released > 0) {
      this.commits?.written(manager);
    }
  }

  /** The one insert of outbox rows; an event id already recorded is skipped. */
  private writeEnvelopes(
    batch: WriteBatch,
    manager: EntityManager,
    envelopes: ReadonlyArray<EventEnvelope<object>>,
    shares: ReadonlyArray<OutboxShare | undefined> = [],
  ): void {
    batch.afterExecute(() => this.commits?.written(manager));
    // The trace the rows belong to travels with them (the relay may be another replica, or run after a restart).
    const traceparent = currentTraceparent();
    const rows = envelopes.map((envelope, index) => {
      const share = shares[index];
      return {
        id: envelope.eventId,
        subject: envelope.subject,
        envelope,
        traceparent,
        ...(share ? { share_key: share.key, share_order: share.order, share_unit: share.unit, share_limit: share.limit } : {}),
      };
    });
    // WITH ORDINALITY keeps the array's order for the sequence (the relay publishes by seq).
    batch.write(
      `INSERT INTO ${tableSql(manager, OutboxEventEntity)} (id, subject, envelope, traceparent, share_key, share_order, share_unit, share_limit)
       SELECT r.id, r.subject, r.envelope, r.traceparent, r.share_key, r.share_order, r.share_unit, r.share_limit
         FROM ROWS FROM (jsonb_to_recordset(${batch.param(JSON.stringify(rows), 'jsonb')})
                AS (id uuid, subject text, envelope jsonb, traceparent text, share_key text, share_order text, share_unit text, share_limit int))
              WITH ORDINALITY AS r(id, subject, envelope, traceparent, share_key, share_order, share_unit, share_limit, n)
       ORDER BY r.n ON CONFLICT DO NOTHING`,
    );
  }
}
