import { CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One row per (consumer, event) handled: a redelivered event finds its row and is skipped. Kept as long as the
 * event can come back (`INBOX_RETENTION_MS`), then pruned by `InboxRecordsRepository`.
 */
@Entity({ name: 'inbox_record' })
@Index('idx_inbox_record_handled_at', ['handledAt'])
export class InboxRecordEntity {
  @PrimaryColumn({ type: 'text' })
  consumer!: string;

  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId!: string;

  @CreateDateColumn({ name: 'handled_at', type: 'timestamptz' })
  handledAt!: Date;
}
