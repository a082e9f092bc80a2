import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ForgetExpiredOrderSlotsUseCase } from './forget-expired-order-slots.use-case';

/**
 * `evt.orders.order.status-changed` with `expired`: the order's upload slots are deleted
 * (`ForgetExpiredOrderSlotsUseCase`). A redelivery deletes nothing more.
 */
@Injectable()
export class OrderExpiredConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly forget: ForgetExpiredOrderSlotsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-order-expired',
      stream: Streams.events.name,
      message: Events.orderStatusChanged,
      parkOnlyBecause: "the order is expired and its objects deleted by retention; only the slots' file names and source URLs wait for a replay",
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
