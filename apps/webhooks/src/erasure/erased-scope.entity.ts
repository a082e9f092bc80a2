import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An account (`orderId` '0') or one order an operator erased. An event of it handled after the erasure writes nothing
 * here any more (the owner's address of a late `account created`, the deliveries of a late order event), and no
 * webhook is created for an erased account (a request its key authenticated just before). Ids only; kept for good:
 * those events can come back from the stream, or a replay of a parked one, at any time.
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
