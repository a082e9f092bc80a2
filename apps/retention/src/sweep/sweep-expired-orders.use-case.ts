import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderExpiryEntity } from '../schedule/order-expiry.entity';
import { OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from './order-objects.service';
import { OrdersExpiryPort } from './orders-expiry.client';

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
 * One batch of the retention sweep (spec 3.1: retention period over → files deleted, order `expired`).
 * In one transaction holding the batch's schedule rows: orders marks the orders expired and nulls their
 * object keys first, then the objects under each order's prefix are deleted, then the rows advance. Every
 * step is idempotent, so a crash anywhere (the locks go with the connection) just repeats the batch:
 * no object outlives its sweep and no order row ever points at a deleted object.
 */
@Injectable()
export class SweepExpiredOrdersUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly expiries: OrderExpiryRepository,
    private readonly orders: OrdersExpiryPort,
    private readonly objects: OrderObjects,
    private readonly clock: Clock,
  ) {}

  /** Handles one due batch; returns how many schedule rows it handled (0: nothing is due). */
  async execute(): Promise<number> {
    const { batchSize, deleteConcurrency, recheckMs } = this.config.retention;
    return this.transactions.run(async (manager) => {
      const now = this.clock.now();
      const due = await this.expiries.claimDue(manager, now, batchSize);
      if (due.length === 0) {
        return 0;
      }
      const scheduled = due.filter((expiry) => expiry.phase === 'scheduled');
      const skipped = new Set<string>();
      if (scheduled.length > 0) {
        const result = await this.orders.expire(scheduled.map((expiry) => expiry.orderId));
        result.skipped.forEach((orderId) => skipped.add(orderId));
      }
      const toPurge = due.filter((expiry) => !skipped.has(expiry.orderId));
      const purged: Array<{ expiry: OrderExpiryEntity; deleted: number }> = [];
      await forEachLimited(toPurge, deleteConcurrency, async (expiry) => {
        purged.push({ expiry, deleted: await this.objects.purge(expiry.accountId, expiry.orderId) });
      });
      await this.expiries.purged(manager, purged, now, recheckMs);
      await this.expiries.postpone(manager, [...skipped], new Date(now.getTime() + Math.max(recheckMs, 60_000)));
      return due.length;
    });
  }
}
