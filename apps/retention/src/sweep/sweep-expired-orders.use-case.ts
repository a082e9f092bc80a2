import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { LeasedExpiry, OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from './order-objects.service';
import { OrdersExpiryPort } from './orders-expiry.client';
import { RetentionEndEventsRepository } from './retention-end-events.repository';

/** Runs `work` over `items` with at most `limit` in flight. */
async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

/**
 * Whether a claimed row is due for the early deletion of a failed order's objects (its `failedPurgeAt` came, its
 * `expiresAt` not yet): only the objects go, orders is not asked to expire the order, which stays `failed`. A row
 * whose `expiresAt` came is expired as any other, whether or not its objects already went.
 */
export function dueForFailedPurge(expiry: LeasedExpiry, now: Date): boolean {
  return (
    expiry.phase === 'scheduled' &&
    expiry.failedPurgedAt === null &&
    expiry.failedPurgeAt !== null &&
    expiry.failedPurgeAt.getTime() <= now.getTime() &&
    expiry.expiresAt.getTime() > now.getTime()
  );
}

/**
 * One batch of the retention sweep (spec 3.1: retention period over → files deleted, order `expired`; and a failed
 * order's objects `RETENTION_FAILED_ORDER_GRACE_HOURS` after its failure, `dueForFailedPurge`), in
 * three steps so that no lock or pooled connection is held across the orders RPC or the S3 deletes:
 * 1. a short statement claims the due rows with a lease (a crashed sweep's lease runs out and the rows are
 *    claimed again);
 * 2. outside any transaction, orders marks the live orders expired and forgets their object keys, then the
 *    objects under each order's prefix are deleted (test orders: only the objects; they keep their test status;
 *    failed orders due for their early deletion: only the objects, the order keeps its keys, which no read hands
 *    out for a failed order, until its expiry nulls them);
 * 3. short statements record the outcome, only for rows still under this sweep's lease; a test order purged at
 *    the end of its retention is announced in the same transaction (`evt.retention.test-order.retention-ended`,
 *    through the outbox): it has no `expired` status event, so this is what the other services delete their
 *    copies of its personal data on.
 * Every step is idempotent, so repeating a batch is harmless and no order row ever points at a deleted object.
 * An order with a key storage would not delete is not marked purged: it is due again at the next sweep.
 */
@Injectable()
export class SweepExpiredOrdersUseCase {
  private readonly logger = new Logger(SweepExpiredOrdersUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly expiries: OrderExpiryRepository,
    private readonly orders: OrdersExpiryPort,
    private readonly objects: OrderObjects,
    private readonly clock: Clock,
    private readonly endEvents: RetentionEndEventsRepository,
  ) {}

  /** Handles one due batch; returns how many schedule rows it handled (0: nothing is due). */
  async execute(): Promise<number> {
    const { batchSize, leaseMs } = this.config.retention;
    const claimedAt = this.clock.now();
    const due = await this.transactions.run((tx) => this.expiries.claimDue(tx, claimedAt, batchSize, new Date(claimedAt.getTime() + leaseMs)));
    if (due.length === 0) {
      return 0;
    }
    const failedOrders = new Set(due.filter((expiry) => dueForFailedPurge(expiry, claimedAt)).map((expiry) => expiry.orderId));
    let skipped: Set<string>;
    try {
      skipped = await this.expireLiveOrders(due.filter((expiry) => !failedOrders.has(expiry.orderId)));
    } catch (error) {
      // Nothing was done with the batch: give it back now rather than when the lease runs out.
      await this.transactions.run((tx) => this.expiries.release(tx, due));
      throw error;
    }
    const purged: Array<{ expiry: LeasedExpiry; deleted: number }> = [];
    const failedPurged: Array<{ expiry: LeasedExpiry; deleted: number }> = [];
    const unfinished: LeasedExpiry[] = [];
    await forEachLimited(
      due.filter((expiry) => !skipped.has(expiry.orderId)),
      this.config.retention.deleteConcurrency,
      async (expiry) => {
        const outcome = await this.purge(expiry);
        if (outcome === null) {
          unfinished.push(expiry);
        } else {
          (failedOrders.has(expiry.orderId) ? failedPurged : purged).push({ expiry, deleted: outcome });
        }
      },
    );
    await this.record({ purged, failedPurged, unfinished, refused: due.filter((expiry) => skipped.has(expiry.orderId)) });
    if (failedPurged.length > 0) {
      this.logger.log({ orders: failedPurged.length, objects: failedPurged.reduce((sum, row) => sum + row.deleted, 0) }, "retention: failed orders' objects deleted before their expiry");
    }
    return due.length;
  }

  /** Live orders due for their first pass are expired by orders; returns the ids it refused (not due by its clock, unknown). */
  private async expireLiveOrders(due: LeasedExpiry[]): Promise<Set<string>> {
    const scheduled = due.filter((expiry) => expiry.phase === 'scheduled' && expiry.mode === 'live');
    if (scheduled.length === 0) {
      return new Set();
    }
    const result = await this.orders.expire(scheduled.map((expiry) => expiry.orderId));
    return new Set(result.skipped);
  }

  /** The order's objects, deleted; null when some are still there (an error of storage: retried next sweep). */
  private async purge(expiry: LeasedExpiry): Promise<number | null> {
    try {
      const { deleted, failed } = await this.objects.purge(expiry.accountId, expiry.orderId);
      if (failed.length === 0) {
        return deleted;
      }
      this.logger.warn({ orderId: expiry.orderId, failed: failed.slice(0, 10), failedCount: failed.length }, 'retention: objects not deleted; retried at the next sweep');
    } catch (error) {
      this.logger.warn({ err: error, orderId: expiry.orderId }, 'retention: purge failed; retried at the next sweep');
    }
    return null;
  }

  private async record(outcome: {
    purged: Array<{ expiry: LeasedExpiry; deleted: number }>;
    failedPurged: Array<{ expiry: LeasedExpiry; deleted: number }>;
    unfinished: LeasedExpiry[];
    refused: LeasedExpiry[];
  }): Promise<void> {
    const { purged, failedPurged, unfinished, refused } = outcome;
    const { recheckMs, sweepIntervalMs } = this.config.retention;
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      await this.expiries.purged(tx, purged, now, recheckMs);
      // The first pass only (the recheck finds the same order again): the handlers are idempotent anyway.
      const testOrdersEnded = purged.filter(({ expiry }) => expiry.mode === 'test' && expiry.phase === 'scheduled').map(({ expiry }) => expiry);
      await this.endEvents.testOrdersEnded(tx, testOrdersEnded);
      await this.expiries.failedPurged(tx, failedPurged, now);
      await this.expiries.postpone(tx, unfinished, new Date(now.getTime() + sweepIntervalMs));
      await this.expiries.postpone(tx, refused, new Date(now.getTime() + Math.max(recheckMs, 60_000)));
    });
  }
}
