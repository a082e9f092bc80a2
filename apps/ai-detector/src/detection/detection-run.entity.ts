import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type DetectionRunStatus = 'processing' | 'completed' | 'failed';

/** One analysis of one file of an aiDetection order; retries reuse the row. */
@Entity({ name: 'detection_run' })
@Index('uq_detection_run_file', ['orderId', 'fileId'], { unique: true })
export class DetectionRunEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'file_id', type: 'text' })
  fileId!: string;

  @Column({ type: 'text' })
  status!: DetectionRunStatus;

  @Column({ type: 'double precision', nullable: true })
  probability!: number | null;

  @Column({ type: 'text', nullable: true })
  category!: string | null;

  @Column({ name: 'no_evidence', type: 'boolean', nullable: true })
  noEvidence!: boolean | null;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: string | null;

  /** Stored images (AiDetectionImages of the contracts). */
  @Column({ type: 'jsonb', nullable: true })
  images!: object | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
