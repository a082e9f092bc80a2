import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ResultHandler } from '../order-types/order-type-definition';
import { OrdersRepository } from '../orders/orders.repository';
import { OrderProcessingService } from './order-processing.service';

/**
 * A worker's result event, mapped onto its order by the order type's handler. Only orders still processing change;
 * an event that ends a job frees that job's place in its account's share (`ResultHandler.endedUnit`).
 */
@Injectable()
export class ApplyResultUseCase {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly processing: OrderProcessingService,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, handler: ResultHandler, event: object): Promise<void> {
    const orderId = handler.orderIdOf(event);
    const order = await this.orders.lock(tx, orderId);
    // The job the event is the end of frees its place in the account's share whatever became of its order.
    const ended = handler.endedUnit?.(event);
    if (ended !== undefined) {
      await this.orders.releaseJobs(tx, orderId, [ended]);
    }
    if (!order || order.status !== 'inProgress') {
      return;
    }
    const events = handler.apply(order, event, this.processing.context(this.clock.now()));
    await this.orders.save(tx, order, this.processing.shared(order, events));
  }
}
