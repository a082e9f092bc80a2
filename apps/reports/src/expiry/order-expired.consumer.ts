import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ExpireOrderReportsUseCase } from './expire-order-reports.use-case';

/**
 * `evt.orders.order.status-changed` with `expired`: the order's reports answer ORDER_EXPIRED from now on and
 * no row keeps pointing at an object the retention service deletes.
 */
@Injectable()
export class OrderExpiredConsumer implements OnModuleInit {
  private readonly logger = new Logger(OrderExpiredConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly expire: ExpireOrderReportsUseCase,
    private readonly storage: ObjectStorage,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'reports-order-expired',
      stream: Streams.events.name,
      message: Events.orderStatusChanged,
      parkOnlyBecause: "retention deletes the expired order's objects regardless; only this service's rows wait for a replay",
      concurrency: 4,
      skip: (event) => event.status !== 'expired',
      handle: async (event, context) => {
        let dropped: Array<{ bucket: string; key: string }> = [];
        await context.transaction(async (manager) => {
          dropped = await this.expire.execute(manager, event.orderId);
        });
        // After the commit: the rows no longer point here. Retention deletes the prefix too; this is belt and braces.
        for (const object of dropped) {
          await this.storage.remove(object.bucket, [object.key]).catch((error: unknown) => {
            this.logger.warn({ err: error, key: object.key }, 'could not delete an expired report object (retention will)');
          });
        }
      },
    });
  }
}
