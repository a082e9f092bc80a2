import { Clock } from '@cp/clock';
import { OrderStatusChangedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderExpiryRepository } from './order-expiry.repository';

/**
 * One status event of an order (`evt.orders.order.status-changed`): the first schedules its expiry at `expiresAt`;
 * a `failed` one also brings the deletion of its objects forward to `RETENTION_FAILED_ORDER_GRACE_HOURS` from now.
 *
 * Why: a failed order's credits came back, yet its inputs (up to 100 files of 200 MiB) and any output stored before
 * the failure were kept for the whole retention, storage a client could fill for free order after order. Not at
 * once: the uploads service already deletes at once the inputs of an order that failed before all its files were in
 * (no job of it ever ran), but one that failed after may still have a job queued or running that reads an input. The
 * grace starts when the event is handled, never before the failure, so a backlog only makes it longer. The order
 * itself is not touched: it stays `failed` and readable, and expires at `expiresAt` as any other.
 */
@Injectable()
export class ScheduleOrderExpiryUseCase {
  constructor(
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly expiries: OrderExpiryRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, event: Pick<OrderStatusChangedEvent, 'orderId' | 'accountId' | 'mode' | 'status' | 'expiresAt'>): Promise<void> {
    if (!event.expiresAt) {
      return;
    }
    const expiry = { orderId: event.orderId, accountId: event.accountId, expiresAt: new Date(event.expiresAt), mode: event.mode };
    if (event.status === 'failed') {
      await this.expiries.scheduleFailedPurge(tx, expiry, new Date(this.clock.nowMs() + this.config.retention.failedOrderGraceMs));
    } else {
      await this.expiries.schedule(tx, expiry);
    }
  }
}
