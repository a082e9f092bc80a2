import { KeyMode, OrderStatus, OrderType } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { ApiVersion, OrderOptions, OrderState } from '../domain/order';

@Entity({ name: 'order' })
@Index('idx_order_account', ['accountId', 'mode', 'createdAt'])
@Index('idx_order_pending_created', ['createdAt'], { where: `status = 'pending'` })
@Index('idx_order_in_progress_updated', ['updatedAt'], { where: `status = 'inProgress'` })
@Index('idx_order_in_progress_created', ['createdAt'], { where: `status = 'inProgress'` })
@Index('idx_order_expires', ['expiresAt', 'id'])
@Index('idx_order_failed', ['failedAt', 'id'], { where: 'failed_at IS NOT NULL' })
/** The row of the order aggregate (`domain/order.ts`); only `OrdersRepository` reads and writes it. */
export class OrderEntity implements OrderState {
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
  status!: OrderStatus;

  @Column({ name: 'processing_delayed', type: 'boolean', default: false })
  processingDelayed!: boolean;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: string | null;

  /** Credits charged at creation (0 for test orders); restored once if the order fails. */
  @Column({ name: 'credits_charged', type: 'integer', default: 0 })
  creditsCharged!: number;

  /** Embed: the single output or the ZIP that `download` hands out. */
  @Column({ name: 'package_key', type: 'text', nullable: true })
  packageKey!: string | null;

  /** The type's creation options (anti-AI: strength, zero-copy targets), as its rules made them. */
  @Column({ type: 'jsonb', nullable: true })
  options!: OrderOptions | null;

  /** The type's own result (AI detection: the analysis of each image; extract: the outcome), written by its result handlers. */
  @Column({ name: 'type_result', type: 'jsonb', nullable: true })
  typeResult!: OrderOptions | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt!: Date | null;

  /**
   * The trace of the order's creation (W3C `traceparent`; null when tracing is off): later requests continue it.
   * Not part of the order's state (the repository leaves it out); `OrdersRepository.traceparentOf` reads it.
   */
  @Column({ type: 'text', nullable: true })
  traceparent?: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
