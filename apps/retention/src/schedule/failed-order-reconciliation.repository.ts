import { FailedOrderCursor } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { CursorLease, LeasedCursorRepository } from './leased-cursor.repository';

/** The reconciliation of failed orders claimed by one replica until `leasedUntil`. */
export type FailedOrderLease = CursorLease<FailedOrderCursor>;

/** The cursor and lease of the reconciliation of failed orders (`ReconcileFailedOrdersUseCase`): by (`failedAt`, `orderId`). */
@Injectable()
export class FailedOrderReconciliationRepository extends LeasedCursorRepository<FailedOrderCursor> {
  constructor() {
    super({ table: 'failed_order_reconciliation', timeColumn: 'after_failed_at', cursor: (failedAt, orderId) => ({ failedAt, orderId }), timeOf: (cursor) => cursor.failedAt });
  }
}
