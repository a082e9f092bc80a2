import { Events, Streams } from '@cp/contracts';
import { HandlerContext, MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { EnqueueOrderEventUseCase } from './enqueue-order-event.use-case';
import { completedEvent, failedEvent, StoredEvent } from './webhook-payload';

/**
 * Completed and failed orders (v2 and v3, live and test keys) become webhook deliveries. The inbox makes a
 * redelivered event a no-op; the unique (webhook, source event) index is the second guard.
 */
@Injectable()
export class OrderEventsConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly enqueue: EnqueueOrderEventUseCase,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'webhooks-order-completed',
      stream: Streams.events.name,
      message: Events.orderCompleted,
      parkOnlyBecause: 'the order is already terminal and readable through the API; the webhook is sent on replay',
      concurrency: 8,
      handle: async (event, context) => {
        await this.accept(event.accountId, context, completedEvent(context.eventId, event));
      },
    });
    this.messaging.register({
      durable: 'webhooks-order-failed',
      stream: Streams.events.name,
      message: Events.orderFailed,
      parkOnlyBecause: 'the order is already terminal and readable through the API; the webhook is sent on replay',
      concurrency: 8,
      handle: async (event, context) => {
        await this.accept(event.accountId, context, failedEvent(context.eventId, event));
      },
    });
  }

  private async accept(accountId: string, context: HandlerContext, event: StoredEvent): Promise<void> {
    const handled = await context.transaction(async (manager) => {
      await this.enqueue.execute(manager, accountId, context.eventId, event);
    });
    if (handled) {
      this.dispatcher.wake();
    }
  }
}
