import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';

/** Keeps the `reports[]` of order views from the reports service's status events. */
@Injectable()
export class ReportStatusConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly orders: OrdersRepository,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-report-status',
      stream: Streams.events.name,
      message: Events.reportStatusChanged,
      parkOnlyBecause: "the report's own status lives in the reports service; this copy on the order catches up on replay",
      handle: async (event, context) => {
        await context.transaction((tx) => this.orders.recordReportStatus(tx, event));
      },
    });
  }
}
