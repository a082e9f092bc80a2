import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

/** An event written in the same transaction as the state change it describes; relayed to JetStream later. */
@Entity({ name: 'outbox_event' })
@Index('idx_outbox_event_unpublished', ['seq'], { where: 'published_at IS NULL' })
@Index('idx_outbox_event_unpublished_plain', ['seq'], { where: 'published_at IS NULL AND share_key IS NULL' })
@Index('idx_outbox_event_share_waiting', ['shareKey', 'seq'], { where: 'share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NULL' })
@Index('idx_outbox_event_share_sent', ['shareKey', 'publishedAt'], { where: 'share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NOT NULL' })
@Index('idx_outbox_event_share_order', ['shareOrder'], { where: 'share_key IS NOT NULL AND share_released_at IS NULL' })
export class OutboxEventEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'bigint' })
  @Generated('increment')
  seq!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'jsonb' })
  envelope!: object;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  /** A relay claimed the row until then (it is publishing it); past it, the row is anyone's again. */
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;

  /** The broker can never take the row (larger than its max_payload): left out of the relay's claims since then. */
  @Column({ name: 'parked_at', type: 'timestamptz', nullable: true })
  parkedAt!: Date | null;

  /** Why the row was parked (sizes and limit), for the operator. */
  @Column({ name: 'parked_reason', type: 'text', nullable: true })
  parkedReason!: string | null;

  /** The trace the row was written in (W3C `traceparent`), published in the message's headers; null when tracing is off. */
  @Column({ type: 'text', nullable: true })
  traceparent!: string | null;

  /**
   * A job held to its account's share of a queue (`OutboxShare` of `@cp/contracts`): the queue and account whose
   * unfinished jobs are counted together; null for every other row (sent in order, never held).
   */
  @Column({ name: 'share_key', type: 'text', nullable: true })
  shareKey!: string | null;

  /** The order and unit a result names to free the job. */
  @Column({ name: 'share_order', type: 'text', nullable: true })
  shareOrder!: string | null;

  @Column({ name: 'share_unit', type: 'text', nullable: true })
  shareUnit!: string | null;

  /** How many unfinished jobs of its key may be sent (the writer's setting when the row was written). */
  @Column({ name: 'share_limit', type: 'int', nullable: true })
  shareLimit!: number | null;

  /**
   * The job no longer counts against its share: its result came, or its order ended. On a row not yet published
   * it means the job is never sent (its order ended while it waited).
   */
  @Column({ name: 'share_released_at', type: 'timestamptz', nullable: true })
  shareReleasedAt!: Date | null;
}
