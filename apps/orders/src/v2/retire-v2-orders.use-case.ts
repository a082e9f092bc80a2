import { Clock } from '@cp/clock';
import { isV2Retired } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * Spec 9.4: from the retirement time, v2 orders that have not started processing fail with
 * WATERMARK_V2_API_SUNSET and get their credits back (`Order.v2Retired`); orders already processing
 * finish normally. Uploads that complete later are refused by `Order.startProcessing`.
 */
@Injectable()
export class RetireV2OrdersUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  /** Fails one batch of pending v2 orders once the retirement time has passed; returns how many. */
  async execute(batchSize = 100): Promise<number> {
    const now = this.clock.now();
    if (!isV2Retired(now)) {
      return 0;
    }
    return this.transactions.run(async (tx) => {
      const pending = await this.orders.lockPendingV2(tx, batchSize);
      for (const order of pending) {
        await this.orders.save(tx, order, order.v2Retired(now));
      }
      return pending.length;
    });
  }
}
