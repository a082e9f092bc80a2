import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ForgetExpiredOrderDeliveriesUseCase } from './forget-expired-order-deliveries.use-case';

/**
 * `evt.orders.order.status-changed` with `expired`: the order's webhook deliveries are deleted
 * (`ForgetExpiredOrderDeliveriesUseCase`). A redelivery deletes nothing more.
 */
@Injectable()
export class OrderExpiredConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly forget: ForgetExpiredOrderDeliveriesUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'webhooks-order-expired',
      stream: Streams.events.name,
      message: Events.orderStatusChanged,
      parkOnlyBecause: "the order is expired and its objects deleted; only its deliveries' payloads wait for a replay (or the delivery log's pruning)",
      concurrency: 4,
      skip: (event) => event.status !== 'expired',
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          await this.forget.execute(tx, event.orderId);
        });
      },
    });
  }
}
