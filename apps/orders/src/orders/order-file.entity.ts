import { MediaKind } from '@cp/contracts';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { OrderFileRole, OrderFileState, OrderFileStatus } from '../domain/order';

/** An input file of an order; its id is the public `fileId`. */
@Entity({ name: 'order_file' })
@Index('idx_order_file_order', ['orderId', 'position'])
export class OrderFileEntity implements OrderFileState {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  /** Request order (spec: `files[]` follows request order). */
  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'text' })
  role!: OrderFileRole;

  @Column({ name: 'file_name', type: 'text' })
  fileName!: string;

  @Column({ name: 'source_url', type: 'text', nullable: true })
  sourceUrl!: string | null;

  @Column({ name: 'media_kind', type: 'text' })
  mediaKind!: MediaKind;

  @Column({ type: 'text' })
  status!: OrderFileStatus;

  @Column({ type: 'bigint', nullable: true })
  size!: string | null;
}
