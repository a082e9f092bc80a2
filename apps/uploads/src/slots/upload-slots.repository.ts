import { KeyMode, OrderType, OutboxMessage } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { currentTraceparent } from '@cp/tracing';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { UploadSlotEntity } from './upload-slot.entity';

export interface NewUploadSlot {
  fileId: string;
  orderId: string;
  accountId: string;
  mode: KeyMode;
  orderType: OrderType | null;
  bucket: string;
  objectKey: string;
  sourceUrl: string | null;
}

/** A slot `markUploaded` marked: its order, and the trace of the order's creation (null when tracing was off). */
export interface UploadedSlot {
  orderId: string;
  traceparent: string | null;
}

/** A slot as `insertNew` wrote it. */
export type InsertedUploadSlot = NewUploadSlot & Pick<UploadSlotEntity, 'status'>;

/** Persistence of upload slots; writes share the caller's transaction with their outbox messages. */
@Injectable()
export class UploadSlotsRepository extends TransactionalRepository {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  /**
   * Inserts the slots not known yet (idempotent per file id; one statement, so `tx` null is atomic too); returns
   * the slots inserted now, as inserted. One text for any number of slots (arrays, not a VALUES list), so it is
   * prepared once per connection: every order creation runs it (issue 19).
   */
  async insertNew(tx: Transaction | null, slots: NewUploadSlot[]): Promise<InsertedUploadSlot[]> {
    const rows = slots.map((slot) => ({ ...slot, status: slot.sourceUrl ? ('fetching' as const) : ('awaiting' as const) }));
    const manager = tx ? this.db(tx) : this.dataSource.manager;
    const traceparent = currentTraceparent();
    const inserted = await manager.query<Array<{ file_id: string }>>(
      `INSERT INTO ${tableSql(manager, UploadSlotEntity)} (file_id, order_id, account_id, mode, bucket, object_key, source_url, status, traceparent, order_type)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
       ON CONFLICT DO NOTHING RETURNING file_id::text`,
      [
        rows.map((row) => row.fileId),
        rows.map((row) => row.orderId),
        rows.map((row) => row.accountId),
        rows.map((row) => row.mode),
        rows.map((row) => row.bucket),
        rows.map((row) => row.objectKey),
        rows.map((row) => row.sourceUrl),
        rows.map((row) => row.status),
        rows.map(() => traceparent),
        rows.map((row) => row.orderType),
      ],
    );
    const insertedIds = new Set(inserted.map((row) => row.file_id));
    return rows.filter((row) => insertedIds.has(row.fileId));
  }

  findByFileIds(tx: Transaction | null, fileIds: string[]): Promise<UploadSlotEntity[]> {
    return (tx ? this.db(tx) : this.dataSource.manager).findBy(UploadSlotEntity, { fileId: In(fileIds) });
  }

  /** The file ids among these that have a slot (primary key lookups). */
  async knownFileIds(fileIds: string[]): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ file_id: string }>>(`SELECT file_id::text AS file_id FROM upload_slot WHERE file_id = ANY($1::bigint[])`, [fileIds]);
    return rows.map((row) => row.file_id);
  }

  findOfOrder(orderId: string, fileIds: string[]): Promise<UploadSlotEntity[]> {
    return this.dataSource.manager.findBy(UploadSlotEntity, { orderId, fileId: In(fileIds) });
  }

  findOne(tx: Transaction | null, where: { fileId: string; orderId?: string; mode?: KeyMode }): Promise<UploadSlotEntity | null> {
    return (tx ? this.db(tx) : this.dataSource.manager).findOneBy(UploadSlotEntity, where);
  }

  findByObject(tx: Transaction, bucket: string, objectKey: string): Promise<UploadSlotEntity | null> {
    return this.db(tx).findOneBy(UploadSlotEntity, { bucket, objectKey });
  }

  /** The slot, locked until `tx` ends: what becomes of an arriving object is decided one object at a time. */
  lock(tx: Transaction, fileId: string): Promise<UploadSlotEntity | null> {
    return this.db(tx).findOne(UploadSlotEntity, { where: { fileId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Every slot of an order, locked until `tx` ends, in file id order (two transactions locking one order's slots
   * take them in the same order). An upload notification locks its one slot (`lock`), so it is decided either
   * before the order's slots are closed or after, never in between.
   */
  lockOfOrder(tx: Transaction, orderId: string): Promise<UploadSlotEntity[]> {
    return this.db(tx).find(UploadSlotEntity, { where: { orderId }, order: { fileId: 'ASC' }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Fails these slots (waiting or uploaded) with `reason`, as a refused slot is failed: an object that arrives
   * for one of them later is deleted on arrival (`ReceiveUploadUseCase`), and no upload URL is given for it again.
   * A slot already failed keeps its own reason. Returns how many were closed now.
   */
  async close(tx: Transaction, fileIds: readonly string[], reason: string): Promise<number> {
    if (fileIds.length === 0) {
      return 0;
    }
    const result = await this.db(tx)
      .createQueryBuilder()
      .update(UploadSlotEntity)
      .set({ status: 'failed', failureReason: reason.slice(0, 500) })
      .where('file_id IN (:...fileIds) AND status IN (:...open)', { fileIds: [...fileIds], open: ['awaiting', 'fetching', 'uploaded'] })
      .execute();
    return result.affected ?? 0;
  }

  /**
   * Deletes every slot of an order (its file names, object keys and source URLs: personal data this service needs
   * only while the files come in). Returns how many went; none on a repeat.
   */
  async deleteOfOrder(tx: Transaction, orderId: string): Promise<number> {
    const result = await this.db(tx).delete(UploadSlotEntity, { orderId });
    return result.affected ?? 0;
  }

  /** The objects of an order's failed live slots (test slots have none): what is to be deleted, or already was. */
  async closedObjectsOfOrder(orderId: string): Promise<Array<{ bucket: string; key: string }>> {
    const rows = await this.dataSource.manager.find(UploadSlotEntity, {
      select: { bucket: true, objectKey: true },
      where: { orderId, status: 'failed', mode: 'live' },
      order: { fileId: 'ASC' },
    });
    return rows.map((row) => ({ bucket: row.bucket, key: row.objectKey }));
  }

  /**
   * Live slots still waiting, created from `created.after` (inclusive) to `created.before`, least recently checked
   * first. The range is read through `idx_upload_slot_reconcile`, so slots older than it (orders failed, expired or
   * abandoned, which nothing deletes) cost this query nothing however many there are.
   */
  findWaiting(created: { after: Date; before: Date }, limit: number): Promise<UploadSlotEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(UploadSlotEntity, 'slot')
      .where(`slot.status = 'awaiting' AND slot.mode = 'live'`)
      .andWhere('slot.createdAt >= :after AND slot.createdAt < :before', { after: created.after, before: created.before })
      .orderBy('slot.lastCheckedAt', 'ASC', 'NULLS FIRST')
      .limit(batchLimit(limit))
      .getMany();
  }

  /** Marks a waiting (or fetching) slot uploaded; returns its order and trace, or null when it was not waiting. */
  async markUploaded(tx: Transaction, fileId: string, size: number): Promise<UploadedSlot | null> {
    const result = await this.db(tx)
      .createQueryBuilder()
      .update(UploadSlotEntity)
      .set({ status: 'uploaded', size: String(size) })
      .where('file_id = :fileId AND status IN (:...waiting)', { fileId, waiting: ['awaiting', 'fetching'] })
      .returning(['orderId', 'traceparent'])
      .execute();
    const rows = result.raw as Array<{ order_id: string; traceparent: string | null }>;
    return rows.length > 0 ? { orderId: String(rows[0].order_id), traceparent: rows[0].traceparent } : null;
  }

  /** Marks a waiting (or fetching) slot failed with its object's size; false when it was not waiting. */
  async markRefused(tx: Transaction, fileId: string, size: number, reason: string): Promise<boolean> {
    const result = await this.db(tx)
      .createQueryBuilder()
      .update(UploadSlotEntity)
      .set({ status: 'failed', size: String(size), failureReason: reason.slice(0, 500) })
      .where('file_id = :fileId AND status IN (:...waiting)', { fileId, waiting: ['awaiting', 'fetching'] })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async markFailed(tx: Transaction, fileId: string, reason: string): Promise<void> {
    await this.db(tx).update(UploadSlotEntity, fileId, { status: 'failed', failureReason: reason.slice(0, 500) });
  }

  async markChecked(tx: Transaction, fileId: string, at: Date): Promise<void> {
    await this.db(tx).update(UploadSlotEntity, fileId, { lastCheckedAt: at });
  }

  /** Records messages in the outbox of the same transaction. */
  async publish(tx: Transaction, messages: readonly OutboxMessage[]): Promise<void> {
    await this.outbox.addAll(tx, messages);
  }

  /**
   * Frees fetch jobs held to their account's share (`OutboxShare`): the file's (`fileIds`) once its fetch ended, or
   * every one of the order's when the order failed (those still held back are never sent).
   */
  async releaseFetches(tx: Transaction, orderId: string, fileIds?: readonly string[]): Promise<void> {
    await this.outbox.releaseShares(tx, orderId, fileIds);
  }
}

function batchLimit(limit: number): number {
  return Math.max(1, Math.min(limit, 1000));
}
