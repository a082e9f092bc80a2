import { MediaKind } from '@cp/contracts';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type OrderFileRole = 'input' | 'original' | 'inspected';
export type OrderFileStatus = 'awaiting_upload' | 'uploaded' | 'failed';

/** An input file of an order; its id is the public `fileId`. */
@Entity({ name: 'order_file' })
@Index('idx_order_file_order', ['orderId', 'position'])
export class OrderFileEntity {
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
