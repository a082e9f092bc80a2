import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ForgetExpiredOrderSlotsUseCase } from './forget-expired-order-slots.use-case';

/**
 * `evt.retention.test-order.retention-ended`: a test order's retention ended (it never gets an `expired` status
 * event), so its upload slots are deleted as an expired order's are (`ForgetExpiredOrderSlotsUseCase`). A
 * redelivery deletes nothing more.
 */
@Injectable()
export class TestOrderRetentionEndedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly forget: ForgetExpiredOrderSlotsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-test-order-retention-ended',
      stream: Streams.events.name,
      message: Events.testOrderRetentionEnded,
      parkOnlyBecause: "the test order's retention ended and its objects are deleted; only the slots' file names and source URLs wait for a replay",
      concurrency: 4,
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          await this.forget.execute(tx, event.orderId);
        });
      },
    });
  }
}
