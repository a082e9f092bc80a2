import { Column, Entity } from 'typeorm';
import { LeasedCursorEntity } from './leased-cursor.entity';

/**
 * Where the reconciliation of failed orders is (`ReconcileFailedOrdersUseCase`): the last failed order it read, by
 * (`failedAt`, `orderId`), the order of `orders.failed-orders`. `rowsReconciled`: failed orders whose early deletion
 * it scheduled (their `failed` event never did).
 */
@Entity({ name: 'failed_order_reconciliation' })
export class FailedOrderReconciliationEntity extends LeasedCursorEntity {
  /** Null until the first page. */
  @Column({ name: 'after_failed_at', type: 'timestamptz', nullable: true })
  afterFailedAt!: Date | null;
}
