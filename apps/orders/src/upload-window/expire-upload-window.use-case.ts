import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * Spec 3.1: an order still waiting for uploads 12 hours after creation fails with ORDER_TIMEOUT and
 * its credits come back (`Order.uploadWindowClosed`). Orders owns this rule (the retention service does
 * not schedule it).
 */
@Injectable()
export class ExpireUploadWindowUseCase {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  /** Fails one batch of overdue orders; returns how many. */
  async execute(batchSize = 100): Promise<number> {
    const now = this.clock.now();
    const deadline = new Date(now.getTime() - this.config.uploadWindowMs);
    return this.transactions.run(async (tx) => {
      const overdue = await this.orders.lockPendingCreatedBefore(tx, deadline, batchSize);
      for (const order of overdue) {
        await this.orders.save(tx, order, order.uploadWindowClosed(now, this.config.uploadWindowMs));
      }
      return overdue.length;
    });
  }
}
