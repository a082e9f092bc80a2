import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The running sum of an account's ledger, updated in the same transaction as each ledger entry. */
@Entity({ name: 'credit_balance' })
@Check('ck_credit_balance_not_negative', '"balance" >= 0')
export class CreditBalanceEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'integer', default: 0 })
  balance!: number;
}
