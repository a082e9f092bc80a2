import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An account (`orderId` '0') or one order of it that an operator erased, in the schema of each service that records it
 * (`ErasedScopesRepository`). Nothing of it is written there again: an event of it that another consumer handles
 * after the erasure (a backlog, a redelivery, a parked message replayed), a job in flight, or a request its key
 * authenticated just before the erasure. Ids only; kept for good, since such an event can come back at any time.
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
