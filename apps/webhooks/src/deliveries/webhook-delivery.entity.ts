import { WebhookDeliveryStatus, WebhookEventType } from '@cp/contracts';
import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';

/** What the payload needs besides the stored fields: the result object presigned at each attempt. */
export interface DeliveryDownloadRef {
  bucket: string;
  key: string;
  fileName: string;
}

/** A field of the payload's `data` set to a 1-hour URL of `object` at each attempt (e.g. `heatmapUrl`). */
export interface DeliveryLink {
  field: string;
  object: DeliveryDownloadRef;
}

/**
 * One event for one endpoint: the delivery log entry and, while PENDING, its place in the durable retry
 * queue (`next_attempt_at`, read against the injected clock). `lease_*` mark an attempt in flight.
 */
@Entity({ name: 'webhook_delivery' })
@Index('uq_webhook_delivery_source', ['webhookId', 'sourceEventId'], { unique: true })
@Index('idx_webhook_delivery_list', ['webhookId', 'createdAt'])
@Index('idx_webhook_delivery_due', ['nextAttemptAt'], { where: `status = 'PENDING'` })
// The pruning's order: ended deliveries (SUCCESS, FAILED: exactly those with `completed_at`) by when they ended.
@Index('idx_webhook_delivery_ended', ['completedAt'], { where: 'completed_at IS NOT NULL' })
// An expired order's deliveries are deleted by order (`deleteOfOrder`); the order timeline reads them the same way.
@Index('idx_webhook_delivery_order', ['orderId'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'webhook_id', type: 'integer' })
  webhookId!: number;

  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: WebhookEndpointEntity;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId!: string;

  /** The JetStream event this delivery came from (idempotency with the webhook id). */
  @Column({ name: 'source_event_id', type: 'text' })
  sourceEventId!: string;

  /** The payload's `eventId`: the same for every attempt and every endpoint. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: WebhookEventType;

  @Column({ name: 'order_id', type: 'text' })
  orderId!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /** The payload's `data` without `downloadUrl`, which is presigned again at every attempt. */
  @Column({ type: 'jsonb' })
  data!: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  download!: DeliveryDownloadRef | null;

  @Column({ type: 'jsonb', nullable: true })
  links!: DeliveryLink[] | null;

  @Column({ type: 'text' })
  status!: WebhookDeliveryStatus;

  /** Every attempt ever made, automatic or manual. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Attempts of the current automatic round; indexes the retry schedule. */
  @Column({ name: 'round_attempts', type: 'integer', default: 0 })
  roundAttempts!: number;

  /** 0 for the first delivery; bulk retries start a new round (no failure e-mail for those). */
  @Column({ type: 'integer', default: 0 })
  round!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ name: 'lease_token', type: 'uuid', nullable: true })
  leaseToken!: string | null;

  /** Real (database) time: a lease is about a live process, not about business time. */
  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  /** The trace of the event the delivery is for (W3C `traceparent`; null when tracing is off): attempts continue it. */
  @Column({ type: 'text', nullable: true })
  traceparent?: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
