import { KeyMode, OrderType } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type UploadSlotStatus = 'awaiting' | 'fetching' | 'uploaded' | 'failed';

/** Where one input file of an order is expected, and whether it has arrived. */
@Entity({ name: 'upload_slot' })
@Index('uq_upload_slot_object', ['bucket', 'objectKey'], { unique: true })
// The reconciliation's range (`findWaiting`): waiting live slots by creation time.
@Index('idx_upload_slot_reconcile', ['createdAt'], { where: `status = 'awaiting' AND mode = 'live'` })
// The slots of one order (`lockOfOrder`, `closedObjectsOfOrder`): read for every failed order, in a table never emptied.
@Index('idx_upload_slot_order', ['orderId'])
export class UploadSlotEntity {
  @PrimaryColumn({ name: 'file_id', type: 'bigint' })
  fileId!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: KeyMode;

  /** Decides the input limit of the upload; null for slots registered without it (the largest limit applies). */
  @Column({ name: 'order_type', type: 'text', nullable: true })
  orderType!: OrderType | null;

  @Column({ type: 'text' })
  bucket!: string;

  @Column({ name: 'object_key', type: 'text' })
  objectKey!: string;

  @Column({ name: 'source_url', type: 'text', nullable: true })
  sourceUrl!: string | null;

  @Column({ type: 'text' })
  status!: UploadSlotStatus;

  @Column({ type: 'bigint', nullable: true })
  size!: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;

  @Column({ name: 'last_checked_at', type: 'timestamptz', nullable: true })
  lastCheckedAt!: Date | null;

  /** The order creation's trace (W3C `traceparent`), continued when the upload is detected; null when tracing is off. */
  @Column({ type: 'text', nullable: true })
  traceparent!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
