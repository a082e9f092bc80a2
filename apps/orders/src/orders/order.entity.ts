import { KeyMode, OrderStatus } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type OrderType = 'watermarkEmbed' | 'watermarkExtract';
export type ApiVersion = 'v2' | 'v3';

@Entity({ name: 'order' })
@Index('idx_order_account', ['accountId', 'mode', 'createdAt'])
export class OrderEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  @Column({ type: 'text' })
  mode!: KeyMode;

  @Column({ type: 'text' })
  type!: OrderType;

  @Column({ name: 'api_version', type: 'text' })
  apiVersion!: ApiVersion;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  status!: OrderStatus;

  @Column({ name: 'processing_delayed', type: 'boolean', default: false })
  processingDelayed!: boolean;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
