import { Column, Entity } from 'typeorm';
import { LeasedCursorEntity } from './leased-cursor.entity';

/**
 * Where the reconciliation of the schedule with orders is (`ReconcileSchedulesUseCase`): the last order it read, by
 * (`expiresAt`, `orderId`), the order of `orders.expiry-schedules`. `rowsReconciled`: schedules it inserted (orders
 * whose status events never scheduled them).
 */
@Entity({ name: 'schedule_reconciliation' })
export class ScheduleReconciliationEntity extends LeasedCursorEntity {
  /** Null until the first page. */
  @Column({ name: 'after_expires_at', type: 'timestamptz', nullable: true })
  afterExpiresAt!: Date | null;
}
