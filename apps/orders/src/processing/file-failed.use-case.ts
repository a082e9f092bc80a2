import { Clock } from '@cp/clock';
import { FileFailedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/** A file could not be obtained (for example its URL fetch failed): the pending order fails, credits restored. */
@Injectable()
export class FileFailedUseCase {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, event: FileFailedEvent): Promise<void> {
    const order = await this.orders.lock(tx, event.orderId);
    if (order) {
      await this.orders.save(tx, order, order.fileFailed(event.fileId, event.code, this.clock.now()));
    }
  }
}
