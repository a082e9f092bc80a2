import { Clock } from '@cp/clock';
import { ExpiryScheduleView } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderExpiryRepository } from './order-expiry.repository';
import { OrderSchedulesPort } from './order-schedules.client';
import { reconciliationMetrics } from './reconciliation.metrics';
import { ReconciliationLease, ScheduleReconciliationRepository } from './schedule-reconciliation.repository';

/** What one page did: orders read, schedules added, and whether the next page may have more. */
export interface ReconciledPage {
  read: number;
  reconciled: number;
  more: boolean;
}

const NOTHING: ReconciledPage = { read: 0, reconciled: 0, more: false };

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
 * Replicas: a page is read under a lease on the cursor's row (one replica at a time; a crashed one's lease runs
 * out), the orders call runs outside any transaction, and the schedules and the cursor commit together, the
 * cursor only forward and only under the lease. Test orders are scheduled too, like the consumer does: their
 * objects are deleted when their retention ends (orders is not asked to expire them).
 */
@Injectable()
export class ReconcileSchedulesUseCase {
  private readonly logger = new Logger(ReconcileSchedulesUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention' | 'reconcile'>,
    private readonly expiries: OrderExpiryRepository,
    private readonly reconciliation: ScheduleReconciliationRepository,
    private readonly orders: OrderSchedulesPort,
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
    let schedules: ExpiryScheduleView[];
    try {
      const expiresUpTo = new Date(now.getTime() - graceMs).toISOString();
      ({ schedules } = await this.orders.page({ ...(lease.after ? { after: lease.after } : {}), expiresUpTo, limit: pageSize }));
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    if (schedules.length === 0) {
      await this.transactions.run((tx) => this.reconciliation.release(tx, lease));
      return NOTHING;
    }
    const last = schedules[schedules.length - 1];
    let outcome: { added: string[]; advanced: boolean };
    try {
      outcome = await this.transactions.run(async (tx) => {
        const added = await this.expiries.scheduleMissing(
          tx,
          schedules.map((schedule) => ({ orderId: schedule.orderId, accountId: schedule.accountId, expiresAt: new Date(schedule.expiresAt), mode: schedule.mode })),
        );
        const advanced = await this.reconciliation.advance(tx, lease, { expiresAt: last.expiresAt, orderId: last.orderId }, added.length, this.clock.now());
        return { added, advanced };
      });
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    reconciliationMetrics.read.inc(schedules.length);
    if (outcome.added.length > 0) {
      reconciliationMetrics.reconciled.inc(outcome.added.length);
      this.logger.warn(
        { reconciled: outcome.added.length, orderIds: outcome.added.slice(0, 20), through: last.expiresAt },
        'retention: orders no status event had scheduled are scheduled now (events were missed); the sweep expires them',
      );
    }
    if (!outcome.advanced) {
      // The lease ran out during the page and another replica went on: it walks from where it is.
      this.logger.warn({ leasedUntil: lease.leasedUntil }, 'retention: reconciliation lease lost during a page; the cursor is left to the replica that holds it');
      return { read: schedules.length, reconciled: outcome.added.length, more: false };
    }
    return { read: schedules.length, reconciled: outcome.added.length, more: schedules.length === pageSize };
  }

  /** Gives the lease back after a failed page, so the next pass need not wait for it to run out; keeps the page's error. */
  private async releaseAfter(lease: ReconciliationLease, failure: unknown): Promise<void> {
    try {
      await this.transactions.run((tx) => this.reconciliation.release(tx, lease));
    } catch (error) {
      this.logger.warn({ err: error, failure }, 'retention: reconciliation lease not released; it runs out by itself');
    }
  }
}
