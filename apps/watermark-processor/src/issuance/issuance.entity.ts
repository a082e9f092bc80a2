import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type MarkAlgorithm = 'v2' | 'v3';

/**
 * One issued mark: the id is the 64-bit payload embedded in the output; account, order, output and text
 * say whom it was issued for. The registry of the whole service (every account) is searched on extract.
 */
@Entity({ name: 'issuance' })
@Index('uq_issuance_output', ['outputFileId'], { unique: true })
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
