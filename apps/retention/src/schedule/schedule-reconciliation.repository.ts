import { ExpiryScheduleCursor } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { CursorLease, LeasedCursorRepository } from './leased-cursor.repository';

/** The reconciliation of the schedule claimed by one replica until `leasedUntil`. */
export type ReconciliationLease = CursorLease<ExpiryScheduleCursor>;

/** The cursor and lease of the reconciliation of the schedule (`ReconcileSchedulesUseCase`): by (`expiresAt`, `orderId`). */
@Injectable()
export class ScheduleReconciliationRepository extends LeasedCursorRepository<ExpiryScheduleCursor> {
  constructor() {
    super({ table: 'schedule_reconciliation', timeColumn: 'after_expires_at', cursor: (expiresAt, orderId) => ({ expiresAt, orderId }), timeOf: (cursor) => cursor.expiresAt });
  }
}
