import { Clock } from '@cp/clock';
import { TestOrderRetentionEndedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * The end of a test order's retention (`evt.retention.test-order.retention-ended`): the client's URLs it keeps
 * (`originalFileUrl`s, zero-copy output targets) are forgotten, as an expired live order's are in its expiry's
 * transaction. The order keeps its test status (spec 3: test orders are never `expired`) and its record, as an
 * expired order does. Only a test order whose retention ended by this service's clock: a live order is expired by
 * `orders.expire`, and a stray event never touches an order still within its period. Repeating it changes nothing.
 */
@Injectable()
export class ForgetTestOrderUrlsUseCase {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  /** Whether the order's URLs were (or already had been) forgotten. */
  async execute(tx: Transaction, event: TestOrderRetentionEndedEvent): Promise<boolean> {
    const ended = await this.orders.testOrdersPastRetention(tx, [event.orderId], this.clock.now());
    await this.orders.forgetClientUrls(tx, ended);
    return ended.length > 0;
  }
}
