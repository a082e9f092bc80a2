import { Clock } from '@cp/clock';
import { RequestReportCommand, RequestReportResult } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { Report } from '../domain/report';
import { OrderContextClient } from './order-context.client';
import { assertCanStartAttempt, assertNotExpired } from './report-policy';
import { ReportViews } from './report-views.service';
import { ReportsRepository } from './reports.repository';

/**
 * Spec 4.7: a first request, or one after a retryable failure, queues a new attempt (row, status event and
 * job commit together); otherwise the current report is returned unchanged.
 */
@Injectable()
export class RequestReportUseCase {
  constructor(
    private readonly orders: OrderContextClient,
    private readonly transactions: TransactionRepository,
    private readonly repository: ReportsRepository,
    private readonly views: ReportViews,
    private readonly clock: Clock,
  ) {}

  async execute(command: RequestReportCommand): Promise<RequestReportResult> {
    const context = await this.orders.get(command.caller, command.orderId);
    const existing = await this.repository.find(command.orderId, command.locale);
    assertNotExpired(context, existing?.state ?? null, await this.repository.isOrderExpired(command.orderId));
    if (existing && !existing.startsNewAttempt()) {
      return { started: false, report: await this.views.view(existing.state, context.orderName) };
    }
    const reportType = assertCanStartAttempt(context, this.clock.now());
    const outcome = await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const first = Report.request({ orderId: command.orderId, locale: command.locale, accountId: command.caller.accountId, mode: command.caller.mode, reportType }, now);
      if (await this.repository.insertIfAbsent(tx, first.report, first.events)) {
        return { started: true, report: first.report };
      }
      const locked = await this.repository.lock(tx, command.orderId, command.locale);
      const events = locked?.retry(now);
      if (!locked || !events) {
        // A concurrent request got there first.
        return { started: false, report: locked ?? first.report };
      }
      await this.repository.save(tx, locked, events);
      return { started: true, report: locked };
    });
    return { started: outcome.started, report: await this.views.view(outcome.report.state, context.orderName) };
  }
}
