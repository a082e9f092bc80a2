import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ResultHandler } from '../order-types/order-type-definition';
import { OrdersRepository } from '../orders/orders.repository';
import { OrderProcessingService } from './order-processing.service';

/** A worker's result event, mapped onto its order by the order type's handler. Only orders still processing change. */
@Injectable()
export class ApplyResultUseCase {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly processing: OrderProcessingService,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, handler: ResultHandler, event: object): Promise<void> {
    const order = await this.orders.lock(tx, handler.orderIdOf(event));
    if (!order || order.status !== 'inProgress') {
      return;
    }
    const events = handler.apply(order, event, this.processing.context(this.clock.now()));
    await this.orders.save(tx, order, events);
  }
}
