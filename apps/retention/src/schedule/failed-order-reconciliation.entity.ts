import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Where the reconciliation of failed orders is (`ReconcileFailedOrdersUseCase`): the last failed order it read, by
 * (`failedAt`, `orderId`), the order of `orders.failed-orders`. One row (`source` 'orders'), made by its migration,
 * shared by every replica: a page is read under its lease, and the cursor only moves forward.
 */
@Entity({ name: 'failed_order_reconciliation' })
export class FailedOrderReconciliationEntity {
  @PrimaryColumn({ type: 'text' })
  source!: string;

  /** Both null until the first page: the walk starts at the oldest failed order. */
  @Column({ name: 'after_failed_at', type: 'timestamptz', nullable: true })
  afterFailedAt!: Date | null;

  @Column({ name: 'after_order_id', type: 'bigint', nullable: true })
  afterOrderId!: string | null;

  /** Set while a replica reads a page (the orders call runs outside any transaction); also the lease's identity. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  /** Failed orders whose early deletion the reconciliation scheduled in all (their `failed` event never did). */
  @Column({ name: 'rows_reconciled', type: 'bigint', default: 0 })
  rowsReconciled!: string;

  /** When the cursor last moved. */
  @Column({ name: 'advanced_at', type: 'timestamptz', nullable: true })
  advancedAt!: Date | null;
}
