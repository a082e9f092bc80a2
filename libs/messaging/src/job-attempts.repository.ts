import { OrderTimelineStep } from '@cp/contracts';
import { tableSql } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { JobAttemptEntity } from './job-attempt.entity';

/** How long attempts are kept for timelines: the PARKED stream's 30 days. */
const KEEP_MS = 30 * 24 * 3600_000;

export type JobAttemptRecord = Omit<JobAttemptEntity, 'id'>;

/** Attempts of this service's consumers at messages about orders (the order timeline's jobs, retries and reasons). */
@Injectable()
export class JobAttemptsRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** One statement for all of them (`JobAttemptsRecorder` gathers a process's attempts of a few milliseconds). */
  async recordAll(attempts: JobAttemptRecord[]): Promise<void> {
    if (attempts.length > 0) {
      await this.dataSource.getRepository(JobAttemptEntity).insert(attempts);
    }
  }

  /** Drops the attempts older than 30 days (the outbox relay's periodic housekeeping calls it, once per process). */
  async prune(now: number): Promise<void> {
    await this.dataSource.getRepository(JobAttemptEntity).delete({ startedAt: LessThan(new Date(now - KEEP_MS)) });
  }

  /** The attempts at messages about the order, as timeline steps of `service`. */
  async stepsOf(orderId: string, service: string): Promise<OrderTimelineStep[]> {
    const table = tableSql(this.dataSource.manager, JobAttemptEntity);
    const rows: Array<{ consumer: string; subject: string; delivery: number; started_at: Date; duration_ms: number; outcome: string; reason: string | null }> =
      await this.dataSource.query(
        `SELECT consumer, subject, delivery, started_at, duration_ms, outcome, reason FROM ${table} WHERE order_id = $1 ORDER BY started_at, id`,
        [orderId],
      );
    return rows.map((row) => ({
      at: row.started_at.toISOString(),
      service,
      step: `${row.consumer} attempt ${row.delivery}: ${row.outcome}`,
      detail: row.reason ? `${row.subject}: ${row.reason}` : row.subject,
      durationMs: row.duration_ms,
    }));
  }
}
