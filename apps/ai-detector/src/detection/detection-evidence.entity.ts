import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One finding of a detection run, kept so reports and audits can show every piece of evidence with its weight. */
@Entity({ name: 'detection_evidence' })
@Index('idx_detection_evidence_run', ['runId'])
export class DetectionEvidenceEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'run_id', type: 'bigint' })
  runId!: string;

  @Column({ type: 'text' })
  signal!: string;

  @Column({ type: 'text' })
  finding!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text' })
  direction!: string;

  @Column({ type: 'double precision' })
  weight!: number;

  @Column({ type: 'jsonb' })
  details!: object;
}
