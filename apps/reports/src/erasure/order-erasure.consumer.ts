import { OrderErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountReportsUseCase } from './erase-account-reports.use-case';

/** `evt.orders.order.erasure-requested`: the erased order's rows of this schema go (`EraseAccountReportsUseCase`). */
@Injectable()
export class OrderErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(OrderErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountReportsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: OrderErasureConsumers.reports,
      stream: Streams.events.name,
      message: Events.orderErasureRequested,
      parkOnlyBecause: "the order already answers 404 to its owner; its report rows wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          const erased = await this.erase.execute(tx, { accountId: event.accountId, orderId: event.orderId });
          this.logger.log({ accountId: event.accountId, orderId: event.orderId, erasureId: event.erasureId, ...erased }, 'order erased: reports rows deleted');
        });
      },
    });
  }
}
