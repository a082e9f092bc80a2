import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
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
    private readonly transactions: TransactionRepository,
    private readonly repository: ReportsRepository,
    private readonly outcomes: ReportOutcomes,
    private readonly clock: Clock,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {}

  async execute(): Promise<number> {
    const before = new Date(this.clock.nowMs() - this.settings.stuckTimeoutMs);
    const stuck = await this.repository.findStuck(before, 50);
    for (const candidate of stuck) {
      const { orderId, locale, attempt, status, requeues } = candidate.state;
      if (requeues >= MAX_REQUEUES) {
        await this.outcomes.fail(orderId, locale, attempt, 'REPORT_GENERATION_FAILED');
        continue;
      }
      await this.transactions.run(async (tx) => {
        const report = await this.repository.lock(tx, orderId, locale);
        const events = report?.requeue({ attempt, status }, before, this.clock.now());
        if (!report || !events) {
          return;
        }
        await this.repository.save(tx, report, events);
        this.logger.warn({ orderId, locale, attempt, status }, 'stuck report queued again');
      });
    }
    return stuck.length;
  }
}
