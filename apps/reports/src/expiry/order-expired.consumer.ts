import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ExpireOrderReportsUseCase } from './expire-order-reports.use-case';

/** `evt.orders.order.status-changed` with `expired`: the order's reports expire with it. */
@Injectable()
export class OrderExpiredConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly expire: ExpireOrderReportsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'reports-order-expired',
      stream: Streams.events.name,
      message: Events.orderStatusChanged,
      parkOnlyBecause: "retention deletes the expired order's objects regardless; only this service's rows wait for a replay",
      concurrency: 4,
      handle: (event, context) => (event.status === 'expired' ? this.expire.execute(event.orderId, context) : Promise.resolve()),
    });
  }
}
