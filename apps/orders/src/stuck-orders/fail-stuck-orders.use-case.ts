import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * No stranded credit: an order `inProgress` without any progress for STUCK_ORDER_MAX_AGE_MS (its job lost,
 * parked, or never answered; an output started or completed is progress, so a long order is not cut off) fails with PROCESSING_TIMEOUT, its credits come back through the ledger's one
 * restore per order, and the failed event (webhook) goes out with it (`Order.processingTimedOut`). A late result
 * of such an order changes nothing: a failed order ignores processing transitions (`ApplyResultUseCase` drops it),
 * and its object goes with the order's others at retention; the workers are not told.
 */
@Injectable()
export class FailStuckOrdersUseCase {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Fails one batch of stuck orders in one short transaction (rows claimed with SKIP LOCKED, so replicas
   * sweeping at once take different orders; nothing remote is awaited inside it); returns how many.
   */
  async execute(batchSize = 50): Promise<number> {
    const now = this.clock.now();
    const { maxAgeMs } = this.config.stuckOrders;
    const deadline = new Date(now.getTime() - maxAgeMs);
    return this.transactions.run(async (tx) => {
      const stuck = await this.orders.lockInProgressUnchangedSince(tx, deadline, batchSize);
      for (const order of stuck) {
        await this.orders.save(tx, order, order.processingTimedOut(now, maxAgeMs));
      }
      return stuck.length;
    });
  }
}
