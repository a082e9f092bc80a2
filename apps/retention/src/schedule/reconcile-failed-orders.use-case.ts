import { Clock } from '@cp/clock';
import { FailedOrderCursor, FailedOrderView } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { FailedOrderReconciliationRepository } from './failed-order-reconciliation.repository';
import { FailedOrdersPort } from './failed-orders.client';
import { OrderExpiryRepository } from './order-expiry.repository';
import { ReconcileWithOrdersUseCase } from './reconcile-with-orders.use-case';
import { reconciliationMetrics } from './reconciliation.metrics';

/**
 * The least time a failed order is left before the reconciliation reads it, whatever `RETENTION_RECONCILE_GRACE_SECONDS`
 * says: orders writes `failedAt` as the time its transaction started, and that transaction (an event handler's,
 * bounded by its 2 min deadline, or the stuck-orders sweep's) commits later. A cursor past an uncommitted order would
 * never come back to it.
 */
export const FAILED_ORDER_COMMIT_MARGIN_MS = 10 * 60_000;

/**
 * One page of the reconciliation of failed orders with orders. A failed order's objects are deleted
 * `RETENTION_FAILED_ORDER_GRACE_HOURS` after its `failed` status event is handled (`ScheduleOrderExpiryUseCase`); an
 * order whose event retention missed (an outage longer than the EVENTS stream keeps events, a message parked and never
 * replayed, a bug) kept them until its expiry, which the schedule reconciliation (`ReconcileSchedulesUseCase`) reads
 * but not the failure. So retention also walks every order that failed from its owner (`orders.failed-orders`), by
 * (`failedAt`, `orderId`), and gives those without a purge time one at `failedAt` + the grace (due at once when that
 * passed); the sweep deletes their objects as for any failed order. Rows that have one (the event came), or whose
 * order expired already, are never touched; a `failed` event that comes later changes nothing (the first time stays).
 *
 * Why a cursor on `failedAt` is enough: orders sets it once, when the order fails, and never again, so an order read
 * once needs no second look. Only orders that failed `max(RETENTION_RECONCILE_GRACE_SECONDS,
 * FAILED_ORDER_COMMIT_MARGIN_MS)` ago are read: the failing transaction has committed by then, and the status event
 * (the normal path) has long been handled. Replicas, lease and cursor: `ReconcileWithOrdersUseCase`, on the cursor's
 * own row (`failed_order_reconciliation`). Test orders too: their failed rows get the early deletion as well.
 */
@Injectable()
export class ReconcileFailedOrdersUseCase extends ReconcileWithOrdersUseCase<FailedOrderView, FailedOrderCursor> {
  constructor(
    transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) config: Pick<RetentionConfig, 'retention' | 'reconcile'>,
    private readonly expiries: OrderExpiryRepository,
    reconciliation: FailedOrderReconciliationRepository,
    private readonly orders: FailedOrdersPort,
    clock: Clock,
  ) {
    super(transactions, config, reconciliation, clock, {
      metrics: { read: reconciliationMetrics.failedRead, reconciled: reconciliationMetrics.failedReconciled },
      reconciled: "retention: failed orders whose failed status event was missed get their objects' deletion scheduled now; the sweep deletes them",
      leaseLost: 'retention: failed-order reconciliation lease lost during a page; the cursor is left to the replica that holds it',
      notReleased: 'retention: failed-order reconciliation lease not released; it runs out by itself',
    });
  }

  protected async readPage(after: FailedOrderCursor | null, now: Date, limit: number): Promise<FailedOrderView[]> {
    const failedUpTo = new Date(now.getTime() - Math.max(this.config.reconcile.graceMs, FAILED_ORDER_COMMIT_MARGIN_MS)).toISOString();
    return (await this.orders.page({ ...(after ? { after } : {}), failedUpTo, limit })).orders;
  }

  /** Gives the rows without a purge time one at `failedAt` + the grace (inserted when missing). */
  protected applyPage(tx: Transaction, failed: FailedOrderView[]): Promise<string[]> {
    const { failedOrderGraceMs } = this.config.retention;
    return this.expiries.scheduleMissedFailedPurges(
      tx,
      failed.map((order) => ({
        orderId: order.orderId,
        accountId: order.accountId,
        expiresAt: new Date(order.expiresAt),
        mode: order.mode,
        purgeAt: new Date(new Date(order.failedAt).getTime() + failedOrderGraceMs),
      })),
    );
  }

  protected cursorOf(order: FailedOrderView): FailedOrderCursor {
    return { failedAt: order.failedAt, orderId: order.orderId };
  }

  protected timeOf(order: FailedOrderView): string {
    return order.failedAt;
  }
}
