import { MediaKind, OutputStatus } from '@cp/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { OrderOutputState } from '../domain/order';

/** One output per watermark text; `fileId` is `{inputFileId}-{ordinal}`. */
@Entity({ name: 'order_output' })
@Index('idx_order_output_order', ['orderId'])
export class OrderOutputEntity implements OrderOutputState {
  @PrimaryColumn({ name: 'file_id', type: 'text' })
  fileId!: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId!: string;

  @Column({ name: 'input_file_id', type: 'bigint' })
  inputFileId!: string;

  @Column({ name: 'input_position', type: 'integer' })
  inputPosition!: number;

  @Column({ name: 'output_index', type: 'integer' })
  outputIndex!: number;

  @Column({ name: 'watermark_text', type: 'text' })
  watermarkText!: string;

  @Column({ type: 'text' })
  status!: OutputStatus;

  @Column({ name: 'media_kind', type: 'text' })
  mediaKind!: MediaKind;

  @Column({ name: 'object_key', type: 'text', nullable: true })
  objectKey!: string | null;

  @Column({ name: 'failure_code', type: 'text', nullable: true })
  failureCode!: string | null;
}
