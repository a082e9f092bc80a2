import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An order an operator erased (`admin order erase`): ids, the erasure's id and when it was asked, no content. Kept for
 * good, so the same command run again (its first answer lost) gets that erasure back, whenever it is run.
 */
@Entity({ name: 'order_erasure' })
@Index('idx_order_erasure_account', ['accountId'])
export class OrderErasureEntity {
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ name: 'erasure_id', type: 'uuid' })
  erasureId!: string;

  @Column({ name: 'requested_at', type: 'timestamptz' })
  requestedAt!: Date;
}
