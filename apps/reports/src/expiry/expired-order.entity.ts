import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Orders the orders service announced `expired`: every locale answers ORDER_EXPIRED, requested or not. */
@Entity({ name: 'expired_order' })
export class ExpiredOrderEntity {
  @PrimaryColumn({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'expired_at', type: 'timestamptz' })
  expiredAt!: Date;
}
