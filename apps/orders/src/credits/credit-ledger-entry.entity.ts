import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Every change of an account's credits, positive (grant, restore, refund) or negative (charge).
 * `reference` makes each change happen once (a grant id, `charge:<orderId>`, `restore:<orderId>` …).
 */
@Entity({ name: 'credit_ledger_entry' })
@Index('uq_credit_ledger_reference', ['accountId', 'reference'], { unique: true })
export class CreditLedgerEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'integer' })
  amount!: number;

  @Column({ type: 'text' })
  reference!: string;

  @Column({ type: 'text' })
  reason!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
