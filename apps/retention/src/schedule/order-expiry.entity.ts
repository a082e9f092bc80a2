import { KeyMode } from '@cp/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * `scheduled`: waiting for `expiresAt` (and, for a failed order, for `failedPurgeAt` first). `purged`: orders marked it expired and its objects were deleted;
 * the prefix is listed once more at `nextCheckAt` for objects that in-flight jobs wrote late. `done`.
 */
export type ExpiryPhase = 'scheduled' | 'purged' | 'done';

/**
 * One order's expiry, learnt from the orders service's status events, or from orders itself by the reconciliation
 * when the events were missed (`ReconcileSchedulesUseCase`, over `orders.expiry-schedules`: retention never reads
 * orders' tables).
 */
@Entity({ name: 'order_expiry' })
@Index('idx_order_expiry_due', ['nextCheckAt'], { where: `phase <> 'done'` })
export class OrderExpiryEntity {
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'text' })
  phase!: ExpiryPhase;

  /** When the sweep next looks at this order (`expiresAt` at first). */
  @Column({ name: 'next_check_at', type: 'timestamptz' })
  nextCheckAt!: Date;

  @Column({ name: 'purged_at', type: 'timestamptz', nullable: true })
  purgedAt!: Date | null;

  @Column({ name: 'objects_deleted', type: 'integer', default: 0 })
  objectsDeleted!: number;

  /**
   * Set while a sweep works on the row outside any transaction; an expired lease (the sweeper crashed) makes
   * the row claimable again. The sweep records its result only while its lease is still the row's.
   */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  /**
   * A failed order: when its objects are deleted, `RETENTION_FAILED_ORDER_GRACE_HOURS` after its first `failed`
   * status event was handled, or after its `failedAt` when the event was missed (`ReconcileFailedOrdersUseCase`)
   * (set once; `nextCheckAt` is brought forward to it). Null for any other order.
   */
  @Column({ name: 'failed_purge_at', type: 'timestamptz', nullable: true })
  failedPurgeAt!: Date | null;

  /** When the failed order's objects were deleted early; the row then waits for `expiresAt` as any other. */
  @Column({ name: 'failed_purged_at', type: 'timestamptz', nullable: true })
  failedPurgedAt!: Date | null;

  /** Test orders keep their test statuses (orders is not asked to expire them), but their objects are deleted too. */
  @Column({ type: 'text', default: 'live' })
  mode!: KeyMode;
}
