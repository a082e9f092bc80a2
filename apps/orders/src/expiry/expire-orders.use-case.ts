import { Clock } from '@cp/clock';
import { ExpireOrdersCommand, ExpireOrdersResult } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * `orders.expire`, called by the retention service for a batch of orders whose retention period ended.
 * Orders first forgets the result keys; only then does retention delete the objects, so no row ever points
 * at a deleted object. Idempotent: a retried batch reports the already expired orders again.
 */
@Injectable()
export class ExpireOrdersUseCase {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly repository: OrdersRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly clock: Clock,
  ) {}

  async execute(command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    const now = this.clock.now();
    const ids = [...new Set(command.orderIds)];
    return this.dataSource.transaction(async (manager) => {
      const changed = await this.repository.markExpired(manager, ids, now);
      await this.lifecycle.expired(manager, changed);
      const expired = new Set(await this.repository.expiredAmong(manager, ids));
      return { expired: ids.filter((id) => expired.has(id)), skipped: ids.filter((id) => !expired.has(id)) };
    });
  }
}
