import { Clock } from '@cp/clock';
import { OutboxMessage, ReportFailureCode, ReportLocale } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Injectable, Logger } from '@nestjs/common';
import { Report, ReportState, StoredPdf } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';

/**
 * The transitions of one attempt, shared by the generation, its consumer's exhaustion and the stuck-report sweep:
 * each locks the report, applies one `Report` transition and saves it with its events. A transition that no longer
 * applies (stale job, duplicate delivery, expiry in between) changes nothing.
 */
@Injectable()
export class ReportOutcomes {
  private readonly logger = new Logger(ReportOutcomes.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly repository: ReportsRepository,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  /** queued → processing (a redelivery of the same attempt continues). Null when the job is stale. */
  async start(orderId: string, locale: ReportLocale, attempt: number): Promise<Readonly<ReportState> | null> {
    const report = await this.apply(orderId, locale, (found) => found.start(attempt, this.clock.now()));
    return report?.state ?? null;
  }

  async complete(attempt: Pick<ReportState, 'orderId' | 'locale' | 'attempt'>, pdf: StoredPdf): Promise<boolean> {
    const applied = await this.apply(attempt.orderId, attempt.locale, (report) => report.complete(attempt.attempt, pdf, this.clock.now()));
    if (!applied) {
      // Another delivery finished first, or the order expired meanwhile: no report points at this object.
      await this.storage.remove(pdf.bucket, [pdf.key]);
    }
    return applied !== null;
  }

  async fail(orderId: string, locale: ReportLocale, attempt: number, code: ReportFailureCode): Promise<void> {
    const report = await this.apply(orderId, locale, (found) => found.fail(attempt, code, this.clock.now()));
    if (report) {
      this.logger.warn({ orderId, locale, attempt, code, retryable: report.state.failureRetryable }, 'report attempt failed');
    }
  }

  /** Locks the report, runs `transition` and saves it with its events; null when there is none or it did not apply. */
  private apply(orderId: string, locale: ReportLocale, transition: (report: Report) => OutboxMessage[] | null): Promise<Report | null> {
    return this.transactions.run(async (tx: Transaction) => {
      const report = await this.repository.lock(tx, orderId, locale);
      const events = report ? transition(report) : null;
      if (!report || !events) {
        return null;
      }
      await this.repository.save(tx, report, events);
      return report;
    });
  }
}
