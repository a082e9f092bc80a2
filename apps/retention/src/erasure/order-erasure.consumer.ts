import { OrderErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountObjectsUseCase } from './erase-account-objects.use-case';

/** `evt.orders.order.erasure-requested`: the erased order's objects and schedule go (`EraseAccountObjectsUseCase`). */
@Injectable()
export class OrderErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(OrderErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountObjectsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: OrderErasureConsumers.retention,
      stream: Streams.events.name,
      message: Events.orderErasureRequested,
      parkOnlyBecause: "the order already answers 404 to its owner; its objects in storage wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        const erased = await this.erase.execute({ accountId: event.accountId, orderId: event.orderId }, (work) => context.transaction(work));
        this.logger.log({ accountId: event.accountId, orderId: event.orderId, erasureId: event.erasureId, ...erased }, 'order erased: objects and schedule deleted');
      },
    });
  }
}
