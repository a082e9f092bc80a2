import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One attempt of a consumer at a message about an order: what the order's timeline shows of jobs and event
 * handlers (started, duration, outcome, the reason of a failure). Kept 30 days (`JobAttemptsRepository`).
 */
@Entity({ name: 'job_attempt' })
@Index('idx_job_attempt_order', ['orderId', 'startedAt'])
export class JobAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'text' })
  consumer!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ name: 'order_id', type: 'text' })
  orderId!: string;

  /** The broker's delivery count of this attempt (1 for the first). */
  @Column({ type: 'int' })
  delivery!: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;

  /** ok, error, deadline or parked. */
  @Column({ type: 'text' })
  outcome!: string;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;
}
