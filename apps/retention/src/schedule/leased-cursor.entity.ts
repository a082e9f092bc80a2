import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns every walk's cursor row shares (`LeasedCursorRepository`); not an entity itself: each walk's table is
 * a subclass that adds the cursor's time column. One row (`source` 'orders'), made by the walk's migration, shared by
 * every replica: a page is read under its lease, and the cursor only moves forward.
 */
export abstract class LeasedCursorEntity {
  @PrimaryColumn({ type: 'text' })
  source!: string;

  /** Null, with the time, until the first page: the walk starts at the oldest order. */
  @Column({ name: 'after_order_id', type: 'bigint', nullable: true })
  afterOrderId!: string | null;

  /** Set while a replica reads a page (the orders call runs outside any transaction); also the lease's identity. */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  /** Rows the walk's pages changed in all (what the events should have done; see the subclass). */
  @Column({ name: 'rows_reconciled', type: 'bigint', default: 0 })
  rowsReconciled!: string;

  /** When the cursor last moved. */
  @Column({ name: 'advanced_at', type: 'timestamptz', nullable: true })
  advancedAt!: Date | null;
}
