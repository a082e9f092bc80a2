import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * The exhaustion path of the orders service's own consumers (file and result events): the event is parked
 * for an operator, and its order shows `processingDelayed` (API and order view) instead of silently waiting.
 * Idempotent: the consumer may run it again when parking had to wait for the broker.
 *
 * A parked result event still ends its job (`endedUnit`): the worker is done with it, so the job's place in the
 * account's share (`OutboxShare`) is freed now rather than after OUTBOX_SHARE_HOLD_MS. Otherwise a few results
 * orders cannot apply would hold the account's whole share, and every other order of it, for hours.
 */
@Injectable()
export class OrderDelayedUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(orderId: string, endedUnit?: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const order = await this.orders.lock(tx, orderId);
      if (endedUnit !== undefined) {
        await this.orders.releaseJobs(tx, orderId, [endedUnit]);
      }
      if (order) {
        await this.orders.save(tx, order, order.messageParked(this.clock.now()));
      }
    });
  }
}
