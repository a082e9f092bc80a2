import { Events, message, TestOrderRetentionEndedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** An order whose retention ended, as the sweep knows it. */
export interface EndedOrder {
  orderId: string;
  accountId: string;
}

/**
 * Retention's outbox: the end of a test order's retention (`evt.retention.test-order.retention-ended`), written in
 * the transaction that records its objects deleted, so the announcement is never lost to a crash or a restart.
 */
@Injectable()
export class RetentionEndEventsRepository {
  constructor(private readonly outbox: OutboxWriter) {}

  async testOrdersEnded(tx: Transaction, orders: readonly EndedOrder[]): Promise<void> {
    if (orders.length === 0) {
      return;
    }
    await this.outbox.addAll(
      tx,
      orders.map((order) => message(Events.testOrderRetentionEnded, { orderId: order.orderId, accountId: order.accountId } satisfies TestOrderRetentionEndedEvent)),
    );
  }
}
