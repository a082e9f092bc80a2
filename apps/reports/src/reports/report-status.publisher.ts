import { Events, ReportStatusChangedEvent } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ReportEntity } from './report.entity';

/** Every status change goes out as `evt.reports.report.status-changed` in the same transaction (orders keeps `reports[]`). */
@Injectable()
export class ReportStatusPublisher {
  constructor(private readonly outbox: OutboxWriter) {}

  async changed(tx: Transaction, row: ReportEntity): Promise<void> {
    const event: ReportStatusChangedEvent = {
      orderId: row.orderId,
      locale: row.locale,
      status: row.status,
      changedAt: row.statusChangedAt.toISOString(),
    };
    await this.outbox.add(tx, Events.reportStatusChanged, event);
  }
}
