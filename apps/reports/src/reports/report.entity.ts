import { KeyModeLike, ReportFailureCode, ReportLocale, ReportStatus, ReportType } from '@cp/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One report per order and locale; a retry after a failure is a new attempt of the same row. */
@Entity({ name: 'report' })
@Index('idx_report_unfinished', ['statusChangedAt'], { where: `status IN ('queued', 'processing')` })
export class ReportEntity {
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @PrimaryColumn({ type: 'text' })
  locale!: ReportLocale;

  /** Owner, so the generator can ask the orders service for the context on the caller's behalf. */
  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: KeyModeLike;

  @Column({ name: 'report_type', type: 'text' })
  reportType!: ReportType;

  @Column({ type: 'text' })
  status!: ReportStatus;

  /** Attempts started (1 for the first request); jobs carry it so a stale job is recognised. */
  @Column({ type: 'int' })
  attempt!: number;

  @Column({ name: 'failed_attempts', type: 'int', default: 0 })
  failedAttempts!: number;

  /** How often the sweep re-queued the current attempt (a stuck attempt fails after a few). */
  @Column({ name: 'requeues', type: 'int', default: 0 })
  requeues!: number;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: ReportFailureCode | null;

  @Column({ name: 'failure_retryable', type: 'boolean', nullable: true })
  failureRetryable!: boolean | null;

  @Column({ name: 'object_bucket', type: 'text', nullable: true })
  objectBucket!: string | null;

  /** Null whenever no object exists for this row (not yet generated, or dropped with the expired order). */
  @Column({ name: 'object_key', type: 'text', nullable: true })
  objectKey!: string | null;

  @Column({ name: 'pdf_sha256', type: 'text', nullable: true })
  pdfSha256!: string | null;

  @Column({ name: 'pdf_size', type: 'int', nullable: true })
  pdfSize!: number | null;

  /** Set when the orders service announced the order `expired`: from then on ORDER_EXPIRED. */
  @Column({ name: 'order_expired', type: 'boolean', default: false })
  orderExpired!: boolean;

  @Column({ name: 'requested_at', type: 'timestamptz' })
  requestedAt!: Date;

  @Column({ name: 'status_changed_at', type: 'timestamptz' })
  statusChangedAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;
}
