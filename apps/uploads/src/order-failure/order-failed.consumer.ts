import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CloseFailedOrderSlotsUseCase } from './close-failed-order-slots.use-case';

/**
 * `evt.orders.order.failed` (v2 and v3, live and test keys): the order's slots stop taking files, and the inputs of
 * an order that never started are deleted (`CloseFailedOrderSlotsUseCase`). The inbox makes a redelivered event's
 * closing a no-op; the deletion runs on every delivery, so a redelivery retries one that failed.
 */
@Injectable()
export class OrderFailedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly closeSlots: CloseFailedOrderSlotsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-order-failed',
      stream: Streams.events.name,
      message: Events.orderFailed,
      parkOnlyBecause: "the order is already failed and refunded; its upload URLs expire within their validity and retention deletes its inputs; a replay closes and deletes them sooner",
      concurrency: 4,
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          await this.closeSlots.execute(tx, event.orderId);
        });
        // After the commit: the slots are closed, so an object that lands from now on is deleted on arrival.
        await this.closeSlots.deleteInputs(event.orderId);
      },
    });
  }
}
