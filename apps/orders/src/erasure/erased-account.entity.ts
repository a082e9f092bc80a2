import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An account an operator erased. Its ledger is never opened or credited again (`CreditLedgerRepository`: an
 * `account created` or `credits granted` event its consumer handles after the erasure changes nothing), and no test
 * order is created for it (a request its key authenticated just before the erasure). Ids only; kept for good: those
 * events can come back from the stream, or a replay of a parked one, at any time.
 */
@Entity({ name: 'erased_account' })
export class ErasedAccountEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'erased_at', type: 'timestamptz', default: () => 'now()' })
  erasedAt!: Date;
}
