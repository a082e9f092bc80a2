import { Clock } from '@cp/clock';
import { GenerateReportJob, Jobs } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ReportsRepository } from '../reports/reports.repository';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';
import { ReportOutcomes } from './report-outcomes.service';

/** Re-queues of one attempt before the sweep gives up on it (a failed, retryable attempt). */
export const MAX_REQUEUES = 2;

/**
 * Safety net behind the work queue's redelivery: a report `queued` or `processing` past the timeout (its job
 * was parked or lost) gets its job again, and after MAX_REQUEUES it fails instead of hanging for ever.
 */
@Injectable()
export class RequeueStuckReportsUseCase {
  private readonly logger = new Logger(RequeueStuckReportsUseCase.name);

  constructor(
    private readonly repository: ReportsRepository,
    private readonly outbox: OutboxWriter,
    private readonly outcomes: ReportOutcomes,
    private readonly clock: Clock,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {}

  async execute(): Promise<number> {
    const before = new Date(this.clock.nowMs() - this.settings.stuckTimeoutMs);
    const stuck = await this.repository.findStuck(before, 50);
    for (const candidate of stuck) {
      if (candidate.requeues >= MAX_REQUEUES) {
        await this.outcomes.fail(candidate.orderId, candidate.locale, candidate.attempt, 'REPORT_GENERATION_FAILED');
        continue;
      }
      await this.repository.transaction(async (manager) => {
        const row = await this.repository.lock(manager, candidate.orderId, candidate.locale);
        if (!row || row.attempt !== candidate.attempt || row.status !== candidate.status || row.statusChangedAt.getTime() >= before.getTime()) {
          return;
        }
        row.requeues += 1;
        row.statusChangedAt = this.clock.now();
        await this.repository.save(manager, row);
        const job: GenerateReportJob = { orderId: row.orderId, locale: row.locale, attempt: row.attempt };
        await this.outbox.add(manager, Jobs.reportsGenerate, job);
        this.logger.warn({ orderId: row.orderId, locale: row.locale, attempt: row.attempt, status: row.status }, 'stuck report queued again');
      });
    }
    return stuck.length;
  }
}
