import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One row per (consumer, event) handled: a redelivered event finds its row and is skipped. */
@Entity({ name: 'inbox_record' })
export class InboxRecordEntity {
  @PrimaryColumn({ type: 'text' })
  consumer!: string;

  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId!: string;

  @CreateDateColumn({ name: 'handled_at', type: 'timestamptz' })
  handledAt!: Date;
}
