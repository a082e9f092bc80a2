import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';

/**
 * An expired order's deliveries are deleted, whatever their status. Their stored payload names the order's files
 * and, for an extract, the detected recipient (`watermarkInfo.text`), and it would have stayed up to
 * WEBHOOK_DELIVERY_RETENTION_DAYS after the delivery ended: past the order's expiry by as much for an order that
 * ended late. After expiry the payload's links point at deleted objects, so neither a retry nor a pending attempt
 * has anything left to deliver. Afterwards the events are not listed and a retry of one is 404, as after pruning.
 */
@Injectable()
export class ForgetExpiredOrderDeliveriesUseCase {
  constructor(private readonly deliveries: WebhookDeliveriesRepository) {}

  execute(tx: Transaction, orderId: string): Promise<number> {
    return this.deliveries.deleteOfOrder(tx, orderId);
  }
}
