import { Clock } from '@cp/clock';
import { ExpiryScheduleCursor, ExpiryScheduleView } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderExpiryRepository } from './order-expiry.repository';
import { OrderSchedulesPort } from './order-schedules.client';
import { ReconcileWithOrdersUseCase } from './reconcile-with-orders.use-case';
import { reconciliationMetrics } from './reconciliation.metrics';
import { ScheduleReconciliationRepository } from './schedule-reconciliation.repository';

/**
 * One page of the reconciliation of the schedule with orders. The schedule is learnt from orders' status events
 * (`OrderScheduleConsumer`), but the EVENTS stream is bounded by age and size and drops its oldest messages: an
 * outage of retention longer than it keeps them, or an event lost, would leave an order unscheduled, its files kept
 * for ever and, if it never completed, never expired nor refunded. So retention also walks every order's expiry
 * from its owner (`orders.expiry-schedules`), by (`expiresAt`, `orderId`), and inserts the schedules it lacks as
 * due; the sweep then expires them like any other. Existing rows (also purged or done ones) are never touched.
 *
 * Why a cursor on `expiresAt` is enough: orders sets `expiresAt` once, at creation (`createdAt + ORDER_RETENTION_HOURS`,
 * at least an hour ahead), never null and never changed, so an order read once needs no second look, and every
 * order whose retention ended is found once the cursor passes its `expiresAt`. An order commits seconds after its
 * `expiresAt` is taken, at least an hour before that time comes, so none commits behind the cursor. Only orders
 * whose `expiresAt` is `RETENTION_RECONCILE_GRACE_SECONDS` old are read: margin for the two services' clocks, and
 * the status events (the normal path) have long scheduled every order by then. Time is assumed to move forward: a
 * clock set back leaves orders expiring before the cursor to their events alone (as before the reconciliation).
 *
 * Replicas, lease and cursor: `ReconcileWithOrdersUseCase`, on `schedule_reconciliation`. Test orders are scheduled
 * too, like the consumer does: their objects are deleted when their retention ends (orders is not asked to expire them).
 */
@Injectable()
export class ReconcileSchedulesUseCase extends ReconcileWithOrdersUseCase<ExpiryScheduleView, ExpiryScheduleCursor> {
  constructor(
    transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) config: Pick<RetentionConfig, 'retention' | 'reconcile'>,
    private readonly expiries: OrderExpiryRepository,
    reconciliation: ScheduleReconciliationRepository,
    private readonly orders: OrderSchedulesPort,
    clock: Clock,
  ) {
    super(transactions, config, reconciliation, clock, {
      metrics: { read: reconciliationMetrics.read, reconciled: reconciliationMetrics.reconciled },
      reconciled: 'retention: orders no status event had scheduled are scheduled now (events were missed); the sweep expires them',
      leaseLost: 'retention: reconciliation lease lost during a page; the cursor is left to the replica that holds it',
      notReleased: 'retention: reconciliation lease not released; it runs out by itself',
    });
  }

  protected async readPage(after: ExpiryScheduleCursor | null, now: Date, limit: number): Promise<ExpiryScheduleView[]> {
    const expiresUpTo = new Date(now.getTime() - this.config.reconcile.graceMs).toISOString();
    return (await this.orders.page({ ...(after ? { after } : {}), expiresUpTo, limit })).schedules;
  }

  /** Inserts the schedules missing, due at their `expiresAt`; existing rows are left as they are. */
  protected applyPage(tx: Transaction, schedules: ExpiryScheduleView[]): Promise<string[]> {
    return this.expiries.scheduleMissing(
      tx,
      schedules.map((schedule) => ({ orderId: schedule.orderId, accountId: schedule.accountId, expiresAt: new Date(schedule.expiresAt), mode: schedule.mode })),
    );
  }

  protected cursorOf(schedule: ExpiryScheduleView): ExpiryScheduleCursor {
    return { expiresAt: schedule.expiresAt, orderId: schedule.orderId };
  }

  protected timeOf(schedule: ExpiryScheduleView): string {
    return schedule.expiresAt;
  }
}
