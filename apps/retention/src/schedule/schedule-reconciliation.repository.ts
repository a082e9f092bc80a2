import { ExpiryScheduleCursor } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { LeasedCursorRepository } from './leased-cursor.repository';

/** The cursor and lease of the reconciliation of the schedule (`ReconcileSchedulesUseCase`): by (`expiresAt`, `orderId`). */
@Injectable()
export class ScheduleReconciliationRepository extends LeasedCursorRepository<ExpiryScheduleCursor> {
  constructor() {
    super({ table: 'schedule_reconciliation', timeColumn: 'after_expires_at', cursor: (expiresAt, orderId) => ({ expiresAt, orderId }), timeOf: (cursor) => cursor.expiresAt });
  }
}
