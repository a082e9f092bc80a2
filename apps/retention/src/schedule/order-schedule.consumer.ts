import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ScheduleOrderExpiryUseCase } from './schedule-order-expiry.use-case';

/**
 * Learns every order's `expiresAt` from the orders service's status events (the creation event is the
 * first). Test orders are scheduled too: they keep their test statuses (spec 3.1), but anything stored under
 * their prefix is deleted when their retention ends like a live order's. The events are the normal path, not the
 * only one: an order whose events were missed is scheduled by the reconciliation (`ReconcileSchedulesUseCase`).
 * A `failed` event also brings the deletion of the order's objects forward (`ScheduleOrderExpiryUseCase`); a missed
 * one is made up for by the reconciliation of failed orders (`ReconcileFailedOrdersUseCase`).
 */
@Injectable()
export class OrderScheduleConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly scheduleExpiry: ScheduleOrderExpiryUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'retention-order-status',
      stream: Streams.events.name,
      message: Events.orderStatusChanged,
      parkOnlyBecause: 'an order without a schedule is kept, not lost; the replay schedules it',
      concurrency: 8,
      handle: async (event, context) => {
        await context.transaction((tx) => this.scheduleExpiry.execute(tx, event));
      },
    });
  }
}
