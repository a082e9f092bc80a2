import { Clock } from '@cp/clock';
import { ReportFailureCode, ReportLocale } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable, Logger } from '@nestjs/common';
import { failureRetryable } from '../reports/report-policy';
import { ReportStatusPublisher } from '../reports/report-status.publisher';
import { ReportEntity } from '../reports/report.entity';
import { ReportsRepository } from '../reports/reports.repository';

export interface StoredPdf {
  bucket: string;
  key: string;
  sha256: string;
  size: number;
}

/**
 * The state changes of one attempt. Each locks the row and applies only to the attempt it was meant for, so
 * a stale job, a duplicate delivery or an expiry in between never overwrites a newer state.
 */
@Injectable()
export class ReportOutcomes {
  private readonly logger = new Logger(ReportOutcomes.name);

  constructor(
    private readonly repository: ReportsRepository,
    private readonly publisher: ReportStatusPublisher,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  /** queued → processing; a redelivery of the same attempt continues. Null when the job is stale. */
  start(orderId: string, locale: ReportLocale, attempt: number): Promise<ReportEntity | null> {
    return this.repository.transaction(async (manager) => {
      const row = await this.repository.lock(manager, orderId, locale);
      if (!row || !this.isCurrent(row, attempt)) {
        return null;
      }
      const wasQueued = row.status === 'queued';
      // Also on a redelivery: the sweep measures "stuck" from here.
      row.status = 'processing';
      row.statusChangedAt = this.clock.now();
      await this.repository.save(manager, row);
      if (wasQueued) {
        await this.publisher.changed(manager, row);
      }
      return row;
    });
  }

  async complete(row: ReportEntity, pdf: StoredPdf): Promise<boolean> {
    const applied = await this.repository.transaction(async (manager) => {
      const locked = await this.repository.lock(manager, row.orderId, row.locale);
      if (!locked || !this.isCurrent(locked, row.attempt)) {
        return false;
      }
      const now = this.clock.now();
      Object.assign(locked, {
        status: 'completed',
        objectBucket: pdf.bucket,
        objectKey: pdf.key,
        pdfSha256: pdf.sha256,
        pdfSize: pdf.size,
        completedAt: now,
        statusChangedAt: now,
      } satisfies Partial<ReportEntity>);
      await this.repository.save(manager, locked);
      await this.publisher.changed(manager, locked);
      return true;
    });
    if (!applied) {
      // Another delivery finished first, or the order expired meanwhile: no row points at this object.
      await this.storage.remove(pdf.bucket, [pdf.key]);
    }
    return applied;
  }

  async fail(orderId: string, locale: ReportLocale, attempt: number, code: ReportFailureCode): Promise<void> {
    await this.repository.transaction(async (manager) => {
      const row = await this.repository.lock(manager, orderId, locale);
      if (!row || !this.isCurrent(row, attempt)) {
        return;
      }
      row.failedAttempts += 1;
      row.status = 'failed';
      row.failureCode = code;
      row.failureRetryable = failureRetryable(code, row.reportType, row.failedAttempts);
      row.statusChangedAt = this.clock.now();
      await this.repository.save(manager, row);
      await this.publisher.changed(manager, row);
      this.logger.warn({ orderId, locale, attempt, code, retryable: row.failureRetryable }, 'report attempt failed');
    });
  }

  private isCurrent(row: ReportEntity, attempt: number): boolean {
    return row.attempt === attempt && !row.orderExpired && (row.status === 'queued' || row.status === 'processing');
  }
}
