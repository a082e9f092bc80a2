import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * The exhaustion path of the orders service's own consumers (file and result events): the event is parked
 * for an operator, and its order shows `processingDelayed` (API and order view) instead of silently waiting.
 * Idempotent: the consumer may run it again when parking had to wait for the broker.
 */
@Injectable()
export class OrderDelayedUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(orderId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const order = await this.orders.lock(tx, orderId);
      if (order) {
        await this.orders.save(tx, order, order.messageParked(this.clock.now()));
      }
    });
  }
}
