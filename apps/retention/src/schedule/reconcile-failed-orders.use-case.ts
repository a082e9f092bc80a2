import { Clock } from '@cp/clock';
import { FailedOrderView } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { FailedOrderLease, FailedOrderReconciliationRepository } from './failed-order-reconciliation.repository';
import { FailedOrdersPort } from './failed-orders.client';
import { OrderExpiryRepository } from './order-expiry.repository';
import { reconciliationMetrics } from './reconciliation.metrics';
import { ReconciledPage } from './reconcile-schedules.use-case';

/**
 * The least time a failed order is left before the reconciliation reads it, whatever `RETENTION_RECONCILE_GRACE_SECONDS`
 * says: orders writes `failedAt` as the time its transaction started, and that transaction (an event handler's,
 * bounded by its 2 min deadline, or the stuck-orders sweep's) commits later. A cursor past an uncommitted order would
 * never come back to it.
 */
export const FAILED_ORDER_COMMIT_MARGIN_MS = 10 * 60_000;

const NOTHING: ReconciledPage = { read: 0, reconciled: 0, more: false };

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
 * (the normal path) has long been handled. Replicas, lease and cursor as in `ReconcileSchedulesUseCase`, on the cursor's
 * own row (`failed_order_reconciliation`). Test orders too: their failed rows get the early deletion as well.
 */
@Injectable()
export class ReconcileFailedOrdersUseCase {
  private readonly logger = new Logger(ReconcileFailedOrdersUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention' | 'reconcile'>,
    private readonly expiries: OrderExpiryRepository,
    private readonly reconciliation: FailedOrderReconciliationRepository,
    private readonly orders: FailedOrdersPort,
    private readonly clock: Clock,
  ) {}

  /** Reads the next page after the cursor and schedules what is missing; `more`: a full page, the next may have more. */
  async execute(): Promise<ReconciledPage> {
    const { graceMs, pageSize } = this.config.reconcile;
    const now = this.clock.now();
    const lease = await this.transactions.run((tx) => this.reconciliation.claim(tx, now, new Date(now.getTime() + this.config.retention.leaseMs)));
    if (!lease) {
      // Another replica is reading a page; its pass covers this one's.
      return NOTHING;
    }
    let failed: FailedOrderView[];
    try {
      const failedUpTo = new Date(now.getTime() - Math.max(graceMs, FAILED_ORDER_COMMIT_MARGIN_MS)).toISOString();
      ({ orders: failed } = await this.orders.page({ ...(lease.after ? { after: lease.after } : {}), failedUpTo, limit: pageSize }));
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    if (failed.length === 0) {
      await this.transactions.run((tx) => this.reconciliation.release(tx, lease));
      return NOTHING;
    }
    const last = failed[failed.length - 1];
    const { failedOrderGraceMs } = this.config.retention;
    let outcome: { added: string[]; advanced: boolean };
    try {
      outcome = await this.transactions.run(async (tx) => {
        const added = await this.expiries.scheduleMissedFailedPurges(
          tx,
          failed.map((order) => ({
            orderId: order.orderId,
            accountId: order.accountId,
            expiresAt: new Date(order.expiresAt),
            mode: order.mode,
            purgeAt: new Date(new Date(order.failedAt).getTime() + failedOrderGraceMs),
          })),
        );
        const advanced = await this.reconciliation.advance(tx, lease, { failedAt: last.failedAt, orderId: last.orderId }, added.length, this.clock.now());
        return { added, advanced };
      });
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    reconciliationMetrics.failedRead.inc(failed.length);
    if (outcome.added.length > 0) {
      reconciliationMetrics.failedReconciled.inc(outcome.added.length);
      this.logger.warn(
        { reconciled: outcome.added.length, orderIds: outcome.added.slice(0, 20), through: last.failedAt },
        "retention: failed orders whose failed status event was missed get their objects' deletion scheduled now; the sweep deletes them",
      );
    }
    if (!outcome.advanced) {
      // The lease ran out during the page and another replica went on: it walks from where it is.
      this.logger.warn({ leasedUntil: lease.leasedUntil }, 'retention: failed-order reconciliation lease lost during a page; the cursor is left to the replica that holds it');
      return { read: failed.length, reconciled: outcome.added.length, more: false };
    }
    return { read: failed.length, reconciled: outcome.added.length, more: failed.length === pageSize };
  }

  /** Gives the lease back after a failed page, so the next pass need not wait for it to run out; keeps the page's error. */
  private async releaseAfter(lease: FailedOrderLease, failure: unknown): Promise<void> {
    try {
      await this.transactions.run((tx) => this.reconciliation.release(tx, lease));
    } catch (error) {
      this.logger.warn({ err: error, failure }, 'retention: failed-order reconciliation lease not released; it runs out by itself');
    }
  }
}
