import { Jobs, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';
import { GenerateReportUseCase } from './generate-report.use-case';
import { ReportOutcomes } from './report-outcomes.service';

/**
 * Pulls `job.reports.generate` from the JOBS work queue, so many requests never block the API. A job that
 * keeps failing for transient reasons ends as a failed (retryable) attempt instead of staying `processing`.
 */
@Injectable()
export class GenerateReportConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly generate: GenerateReportUseCase,
    private readonly outcomes: ReportOutcomes,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'reports-generate',
      stream: Streams.jobs.name,
      message: Jobs.reportsGenerate,
      concurrency: this.settings.concurrency,
      ackWaitMs: this.settings.jobAckWaitMs,
      maxAttempts: 4,
      backoffMs: [2000, 10_000, 30_000],
      handle: (job) => this.generate.execute(job),
      onExhausted: (job) => this.outcomes.fail(job.orderId, job.locale, job.attempt, 'REPORT_GENERATION_FAILED'),
    });
  }
}
