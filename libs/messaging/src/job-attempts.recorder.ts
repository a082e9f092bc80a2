import { Logger } from '@nestjs/common';
import { JobAttemptRecord, JobAttemptsRepository } from './job-attempts.repository';

/**
 * How long an attempt record waits for others to share its INSERT. Written one statement each, the records cost
 * every order about a dozen commits of their own across the services (issue 32: ~15% of the stack's CPU per order
 * in bench-orders' throughput rows, PostgreSQL's share the largest). The record is written after the message is
 * acknowledged, so this wait is on no order's path; an order's timeline shows an attempt at most this much later.
 * At the ~30 attempts a second a service sees under bench-orders' throughput load, 25 ms gathered about one record
 * per statement; 100 ms gathers a few.
 */
export const ATTEMPT_FLUSH_DELAY_MS = 100;
/** A batch this large is written at once. */
const MAX_BATCH = 200;

/**
 * Gathers the attempt records of a process's consumers and writes them together. Records are diagnostics for the
 * order timeline: a failed write is logged and dropped (the work itself is done and acknowledged), and a process
 * killed with -9 loses at most the last `ATTEMPT_FLUSH_DELAY_MS` of them; a stopping consumer flushes.
 */
export class JobAttemptsRecorder {
  private readonly logger = new Logger(JobAttemptsRecorder.name);
  private pending: JobAttemptRecord[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly repository: JobAttemptsRepository) {}

  record(attempt: JobAttemptRecord): void {
    this.pending.push(attempt);
    if (this.pending.length >= MAX_BATCH) {
      void this.flush();
      return;
    }
    if (!this.timer) {
      // unref: a waiting batch never keeps a process alive; stopping consumers flush it.
      this.timer = setTimeout(() => void this.flush(), ATTEMPT_FLUSH_DELAY_MS).unref();
    }
  }

  /** Writes what is waiting, after any write already under way. Never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      this.writing = this.writing.then(() =>
        this.repository.recordAll(batch).catch((error: unknown) => {
          this.logger.warn({ err: error, attempts: batch.length }, 'could not record attempts for the order timeline');
        }),
      );
    }
    return this.writing;
  }
}
