import { Clock } from '@cp/clock';
import { GenerateReportJob, Jobs, ReportType, RequestReportCommand, RequestReportResult } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { OrderContextClient } from './order-context.client';
import { assertCanStartAttempt, assertNotExpired, startsNewAttempt } from './report-policy';
import { ReportStatusPublisher } from './report-status.publisher';
import { ReportViews } from './report-views.service';
import { ReportEntity } from './report.entity';
import { ReportsRepository } from './reports.repository';

/**
 * Spec 4.7: a first request, or one after a retryable failure, queues a new attempt (row, status event and
 * job commit together); otherwise the current report is returned unchanged.
 */
@Injectable()
export class RequestReportUseCase {
  constructor(
    private readonly orders: OrderContextClient,
    private readonly repository: ReportsRepository,
    private readonly publisher: ReportStatusPublisher,
    private readonly outbox: OutboxWriter,
    private readonly views: ReportViews,
    private readonly clock: Clock,
  ) {}

  async execute(command: RequestReportCommand): Promise<RequestReportResult> {
    const context = await this.orders.get(command.caller, command.orderId);
    const existing = await this.repository.find(command.orderId, command.locale);
    assertNotExpired(context, existing, await this.repository.isOrderExpired(command.orderId));
    if (!startsNewAttempt(existing)) {
      return { started: false, report: await this.views.view(existing as ReportEntity, context.orderName) };
    }
    const reportType = assertCanStartAttempt(context, this.clock.now());
    const outcome = await this.repository.transaction(async (manager) => {
      const now = this.clock.now();
      const fresh = this.newRow(command, reportType, now);
      let row: ReportEntity;
      if (await this.repository.insertIfAbsent(manager, fresh)) {
        row = fresh;
      } else {
        const locked = await this.repository.lock(manager, command.orderId, command.locale);
        if (!locked || !startsNewAttempt(locked)) {
          // A concurrent request got there first.
          return { started: false, row: locked ?? fresh };
        }
        row = Object.assign(locked, {
          status: 'queued',
          attempt: locked.attempt + 1,
          requeues: 0,
          failureCode: null,
          failureRetryable: null,
          statusChangedAt: now,
        } satisfies Partial<ReportEntity>);
        await this.repository.save(manager, row);
      }
      await this.publisher.changed(manager, row);
      const job: GenerateReportJob = { orderId: row.orderId, locale: row.locale, attempt: row.attempt };
      await this.outbox.add(manager, Jobs.reportsGenerate, job);
      return { started: true, row };
    });
    return { started: outcome.started, report: await this.views.view(outcome.row, context.orderName) };
  }

  private newRow(command: RequestReportCommand, reportType: ReportType, now: Date): ReportEntity {
    return Object.assign(new ReportEntity(), {
      orderId: command.orderId,
      locale: command.locale,
      accountId: command.caller.accountId,
      mode: command.caller.mode,
      reportType,
      status: 'queued',
      attempt: 1,
      failedAttempts: 0,
      requeues: 0,
      failureCode: null,
      failureRetryable: null,
      objectBucket: null,
      objectKey: null,
      pdfSha256: null,
      pdfSize: null,
      orderExpired: false,
      requestedAt: now,
      statusChangedAt: now,
      completedAt: null,
    } satisfies Partial<ReportEntity>);
  }
}
