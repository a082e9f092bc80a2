import { Events, GenerateReportJob, Jobs, KeyModeLike, message, OutboxMessage, ReportFailureCode, ReportLocale, ReportStatus, ReportStatusChangedEvent, ReportType } from '@cp/contracts';

/**
 * The report aggregate: one report per order and locale, and every rule of its lifecycle (spec 4.7) in plain
 * TypeScript. Use cases load it through `ReportsRepository`, call one transition, and save it with the events the
 * transition returned, in one transaction. Nothing else changes a report's state.
 *
 *   queued → processing → completed
 *                       ↘ failed (retryable: a new request starts attempt n+1 → queued)
 *
 * Transitions of an attempt name the attempt they are meant for and return null when it is no longer the
 * current one (a stale job, a duplicate delivery, an expiry in between), so a newer state is never overwritten.
 */

/** Failed attempts after which a report is no longer retryable (spec 3.4, section 8); null = no limit. */
export const MAX_FAILED_ATTEMPTS: Record<ReportType, number | null> = {
  watermarkDetection: 3,
  aiDetection: null,
};

/** Retryable after a generation failure while the attempt budget lasts; an unavailable source never is. */
export function failureRetryable(code: ReportFailureCode, reportType: ReportType, failedAttempts: number): boolean {
  if (code === 'REPORT_NOT_AVAILABLE') {
    return false;
  }
  const limit = MAX_FAILED_ATTEMPTS[reportType];
  return limit === null || failedAttempts < limit;
}

export interface ReportState {
  orderId: string;
  locale: ReportLocale;
  /** Owner, so the generator can ask the orders service for the context on the caller's behalf. */
  accountId: string;
  mode: KeyModeLike;
  reportType: ReportType;
  status: ReportStatus;
  /** Attempts started (1 for the first request); jobs carry it so a stale job is recognised. */
  attempt: number;
  failedAttempts: number;
  /** How often the sweep re-queued the current attempt (a stuck attempt fails after a few). */
  requeues: number;
  failureCode: ReportFailureCode | null;
  failureRetryable: boolean | null;
  objectBucket: string | null;
  /** Null whenever no object exists for this report (not yet generated, or dropped with the expired order). */
  objectKey: string | null;
  pdfSha256: string | null;
  pdfSize: number | null;
  /** Set when the orders service announced the order `expired`: from then on ORDER_EXPIRED. */
  orderExpired: boolean;
  requestedAt: Date;
  statusChangedAt: Date;
  completedAt: Date | null;
}

export interface StoredPdf {
  bucket: string;
  key: string;
  sha256: string;
  size: number;
}

export interface StoredObject {
  bucket: string;
  key: string;
}

export class Report {
  private constructor(private readonly current: ReportState) {}

  /** A report as stored. */
  static fromState(state: ReportState): Report {
    return new Report({ ...state });
  }

  /** The first request of a report: attempt 1, queued, with its status event and its job. */
  static request(request: Pick<ReportState, 'orderId' | 'locale' | 'accountId' | 'mode' | 'reportType'>, now: Date): { report: Report; events: OutboxMessage[] } {
    const report = new Report({
      ...request,
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
    });
    return { report, events: [report.statusChanged(), report.job()] };
  }

  get state(): Readonly<ReportState> {
    return this.current;
  }

  /** Whether a request for this report starts a new attempt: only after a retryable failure. */
  startsNewAttempt(): boolean {
    return this.current.status === 'failed' && this.current.failureRetryable === true;
  }

  /** Attempt n+1 after a retryable failure; null when there is nothing to retry (a concurrent request got there first). */
  retry(now: Date): OutboxMessage[] | null {
    if (!this.startsNewAttempt()) {
      return null;
    }
    Object.assign(this.current, {
      status: 'queued',
      attempt: this.current.attempt + 1,
      requeues: 0,
      failureCode: null,
      failureRetryable: null,
      statusChangedAt: now,
    } satisfies Partial<ReportState>);
    return [this.statusChanged(), this.job()];
  }

  /**
   * queued → processing; a redelivery of the same attempt continues (and restarts the stuck timer, which the sweep
   * measures from here) without a second status event. Null when the job is stale.
   */
  start(attempt: number, now: Date): OutboxMessage[] | null {
    if (!this.isCurrent(attempt)) {
      return null;
    }
    const wasQueued = this.current.status === 'queued';
    this.current.status = 'processing';
    this.current.statusChangedAt = now;
    return wasQueued ? [this.statusChanged()] : [];
  }

  complete(attempt: number, pdf: StoredPdf, now: Date): OutboxMessage[] | null {
    if (!this.isCurrent(attempt)) {
      return null;
    }
    Object.assign(this.current, {
      status: 'completed',
      objectBucket: pdf.bucket,
      objectKey: pdf.key,
      pdfSha256: pdf.sha256,
      pdfSize: pdf.size,
      completedAt: now,
      statusChangedAt: now,
    } satisfies Partial<ReportState>);
    return [this.statusChanged()];
  }

  fail(attempt: number, code: ReportFailureCode, now: Date): OutboxMessage[] | null {
    if (!this.isCurrent(attempt)) {
      return null;
    }
    this.current.failedAttempts += 1;
    this.current.status = 'failed';
    this.current.failureCode = code;
    this.current.failureRetryable = failureRetryable(code, this.current.reportType, this.current.failedAttempts);
    this.current.statusChangedAt = now;
    return [this.statusChanged()];
  }

  /**
   * The sweep's second chance for an attempt stuck since before `stuckBefore`: its job again. Null when the report
   * moved on since the sweep saw it as `seen` (finished, a new attempt, or a status change after `stuckBefore`).
   */
  requeue(seen: Pick<ReportState, 'attempt' | 'status'>, stuckBefore: Date, now: Date): OutboxMessage[] | null {
    const { attempt, status, statusChangedAt } = this.current;
    if (attempt !== seen.attempt || status !== seen.status || statusChangedAt.getTime() >= stuckBefore.getTime()) {
      return null;
    }
    this.current.requeues += 1;
    this.current.statusChangedAt = now;
    return [this.job()];
  }

  /** The order expired: ORDER_EXPIRED from now on, and the PDF it pointed at (if any) is to be deleted. */
  expire(): StoredObject | null {
    const { objectBucket: bucket, objectKey: key } = this.current;
    this.current.orderExpired = true;
    this.current.objectBucket = null;
    this.current.objectKey = null;
    return bucket && key ? { bucket, key } : null;
  }

  private isCurrent(attempt: number): boolean {
    const { status } = this.current;
    return this.current.attempt === attempt && !this.current.orderExpired && (status === 'queued' || status === 'processing');
  }

  /** Every status change goes out as `evt.reports.report.status-changed` (orders keeps `reports[]`). */
  private statusChanged(): OutboxMessage {
    const event: ReportStatusChangedEvent = {
      orderId: this.current.orderId,
      locale: this.current.locale,
      status: this.current.status,
      changedAt: this.current.statusChangedAt.toISOString(),
    };
    return message(Events.reportStatusChanged, event);
  }

  private job(): OutboxMessage {
    const job: GenerateReportJob = { orderId: this.current.orderId, locale: this.current.locale, attempt: this.current.attempt };
    return message(Jobs.reportsGenerate, job);
  }
}
