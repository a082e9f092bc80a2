import { FailedOrderCursor } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { LeasedCursorRepository } from './leased-cursor.repository';

/** The cursor and lease of the reconciliation of failed orders (`ReconcileFailedOrdersUseCase`): by (`failedAt`, `orderId`). */
@Injectable()
export class FailedOrderReconciliationRepository extends LeasedCursorRepository<FailedOrderCursor> {
  constructor() {
    super({ table: 'failed_order_reconciliation', timeColumn: 'after_failed_at', cursor: (failedAt, orderId) => ({ failedAt, orderId }), timeOf: (cursor) => cursor.failedAt });
  }
}
