import { KeyMode } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Same key + same body → the same order; same key + another body → 409. Kept as long as the order. */
@Entity({ name: 'idempotency_record' })
export class IdempotencyRecordEntity {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @PrimaryColumn({ type: 'text' })
  mode!: KeyMode;

  /** Order creation endpoint the key was used on (a key is scoped to one kind of order). */
  @PrimaryColumn({ type: 'text' })
  operation!: string;

  @PrimaryColumn({ name: 'idempotency_key', type: 'text' })
  idempotencyKey!: string;

  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
