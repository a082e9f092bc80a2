import { OrderErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountUploadsUseCase } from './erase-account-uploads.use-case';

/** `evt.orders.order.erasure-requested`: the erased order's rows of this schema go (`EraseAccountUploadsUseCase`). */
@Injectable()
export class OrderErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(OrderErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountUploadsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: OrderErasureConsumers.uploads,
      stream: Streams.events.name,
      message: Events.orderErasureRequested,
      parkOnlyBecause: "the order already answers 404 to its owner; its upload slots wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          const erased = await this.erase.execute(tx, { accountId: event.accountId, orderId: event.orderId });
          this.logger.log({ accountId: event.accountId, orderId: event.orderId, erasureId: event.erasureId, ...erased }, 'order erased: uploads rows deleted');
        });
      },
    });
  }
}
