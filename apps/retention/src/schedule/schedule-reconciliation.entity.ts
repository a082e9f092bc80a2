import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Where the reconciliation of the schedule with orders is (`ReconcileSchedulesUseCase`): the last order it read, by
 * (`expiresAt`, `orderId`), the order of `orders.expiry-schedules`. One row (`source` 'orders'), made by its migration,
 * shared by every replica: a page is read under its lease, and the cursor only moves forward.
 */
@Entity({ name: 'schedule_reconciliation' })
export class ScheduleReconciliationEntity {
  @PrimaryColumn({ type: 'text' })
  source!: string;

  /** Both null until the first page: the walk starts at the oldest order. */
  @Column({ name: 'after_expires_at', type: 'timestamptz', nullable: true })
  afterExpiresAt!: Date | null;

  @Column({ name: 'after_order_id', type: 'bigint', nullable: true })
  afterOrderId!: string | null;

  /** Set while a replica reads a page (the orders call runs outside any transaction); also the lease's identity. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  /** Schedules the reconciliation inserted in all (orders whose status events never scheduled them). */
  @Column({ name: 'rows_reconciled', type: 'bigint', default: 0 })
  rowsReconciled!: string;

  /** When the cursor last moved. */
  @Column({ name: 'advanced_at', type: 'timestamptz', nullable: true })
  advancedAt!: Date | null;
}
