import { Clock } from '@cp/clock';
import { ExpireOrdersCommand, ExpireOrdersResult } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * `orders.expire`, called by the retention service for a batch of orders whose retention period ended.
 * Orders first forgets the result keys (`Order.expire`); only then does retention delete the objects, so
 * no row ever points at a deleted object. Idempotent: a retried batch reports the already expired orders again.
 */
@Injectable()
export class ExpireOrdersUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    const now = this.clock.now();
    const ids = [...new Set(command.orderIds)];
    return this.transactions.run(async (tx) => {
      const candidates = await this.orders.lockForExpiry(tx, ids);
      const events = candidates.flatMap((order) => order.expire(now));
      await this.orders.saveAll(tx, candidates, events);
      const expiredIds = await this.orders.expiredAmong(tx, ids);
      // Repeated for orders expired before: harmless, and it covers those expired before URLs were forgotten.
      await this.orders.forgetClientUrls(tx, expiredIds);
      const expired = new Set(expiredIds);
      return { expired: ids.filter((id) => expired.has(id)), skipped: ids.filter((id) => !expired.has(id)) };
    });
  }
}
