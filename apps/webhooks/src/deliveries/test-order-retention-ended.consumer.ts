import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ForgetExpiredOrderDeliveriesUseCase } from './forget-expired-order-deliveries.use-case';

/**
 * `evt.retention.test-order.retention-ended`: a test order's retention ended (it never gets an `expired` status
 * event), so its webhook deliveries are deleted as an expired order's are, pending ones too
 * (`ForgetExpiredOrderDeliveriesUseCase`). A redelivery deletes nothing more.
 */
@Injectable()
export class TestOrderRetentionEndedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly forget: ForgetExpiredOrderDeliveriesUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'webhooks-test-order-retention-ended',
      stream: Streams.events.name,
      message: Events.testOrderRetentionEnded,
      parkOnlyBecause: "the test order's retention ended and its objects are deleted; only its deliveries' payloads wait for a replay (or the delivery log's pruning)",
      concurrency: 4,
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          await this.forget.execute(tx, event.orderId);
        });
      },
    });
  }
}
