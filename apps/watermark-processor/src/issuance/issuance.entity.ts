import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type MarkAlgorithm = 'v2' | 'v3';

/**
 * One issued mark: the id is the 64-bit payload embedded in the output; account, order, output and text
 * say whom it was issued for. The registry of the whole service (every account) is searched on extract.
 */
@Entity({ name: 'issuance' })
@Index('uq_issuance_output', ['outputFileId'], { unique: true })
@Index('idx_issuance_original_hash', ['accountId', 'inputSha256'])
@Index('idx_issuance_original_key', ['accountId', 'inputKey'])
export class IssuanceEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'output_file_id', type: 'text' })
  outputFileId!: string;

  @Column({ name: 'watermark_text', type: 'text' })
  watermarkText!: string;

  @Column({ type: 'text' })
  algorithm!: MarkAlgorithm;

  /** Issue 36: the input object the mark was embedded in (null for issuances made before). */
  @Column({ name: 'input_key', type: 'text', nullable: true })
  inputKey!: string | null;

  /** Issue 36: SHA-256 (hex) of the input's bytes, set when the input is read (null before). */
  @Column({ name: 'input_sha256', type: 'text', nullable: true })
  inputSha256!: string | null;

  /** True when the embedded payload is `issuedPayload(id)` (issue 36); false: the id itself (older issuances, anti-AI marks). */
  @Column({ type: 'boolean', default: false })
  scrambled!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
