import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ForgetTestOrderUrlsUseCase } from './forget-test-order-urls.use-case';

/** `evt.retention.test-order.retention-ended`: the test order's client URLs are forgotten (`ForgetTestOrderUrlsUseCase`). */
@Injectable()
export class TestOrderRetentionEndedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly forget: ForgetTestOrderUrlsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-test-order-retention-ended',
      stream: Streams.events.name,
      message: Events.testOrderRetentionEnded,
      parkOnlyBecause: "the test order's retention ended; only its client URLs (never shown by the API) wait for a replay",
      concurrency: 4,
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          await this.forget.execute(tx, event);
        });
      },
    });
  }
}
