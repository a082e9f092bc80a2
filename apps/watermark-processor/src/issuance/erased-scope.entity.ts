import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An account (`orderId` '0') or one order an operator erased: no issuance is made for it any more
 * (`IssuanceRepository.findOrCreate` refuses, and the job is dropped), so a job in flight at the erasure cannot put
 * a recipient's text back in the registry after the erasure deleted it. Ids only; kept for good (a job may wait in
 * JOBS for days, and a parked one may be replayed).
 */
@Entity({ name: 'erased_scope' })
export class ErasedScopeEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  /** '0': the whole account. */
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'erased_at', type: 'timestamptz', default: () => 'now()' })
  erasedAt!: Date;
}
