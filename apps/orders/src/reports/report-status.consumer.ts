import { EventSubjects, ReportStatusChangedEvent, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';

@Injectable()
export class ReportStatusConsumer implements OnModuleInit {
  constructor(private readonly messaging: MessagingRuntime) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-report-status',
      stream: Streams.events.name,
      filterSubject: EventSubjects.reportStatusChanged,
      payload: ReportStatusChangedEvent,
      handle: async (event, context) => {
        await context.transaction(async (manager) => {
          await manager.query(
            `INSERT INTO order_report (order_id, locale, status, changed_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (order_id, locale) DO UPDATE SET status = EXCLUDED.status, changed_at = EXCLUDED.changed_at
             WHERE order_report.changed_at <= EXCLUDED.changed_at`,
            [event.orderId, event.locale, event.status, event.changedAt],
          );
        });
      },
    });
  }
}
