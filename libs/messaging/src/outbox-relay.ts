import { Injectable, Logger } from '@nestjs/common';
import { headers as natsHeaders, JetStreamClient } from 'nats';
import { DataSource, LessThan } from 'typeorm';
import { messagingMetrics } from './messaging-metrics';
import { OutboxEventEntity } from './outbox-event.entity';

export interface OutboxRelayOptions {
  pollIntervalMs: number;
  batchSize?: number;
  /** Published rows are kept this long for inspection, then deleted. */
  retainPublishedMs?: number;
}

const encoder = new TextEncoder();

/**
 * Publishes committed outbox rows to JetStream. Rows are claimed with FOR UPDATE SKIP LOCKED, so any
 * number of replicas can relay; a crash between publish and marking re-publishes the same `Nats-Msg-Id`,
 * which JetStream de-duplicates (and consumers' inboxes catch what falls outside the window).
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  private lastCleanup = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly js: () => JetStreamClient,
    readonly options: OutboxRelayOptions,
  ) {}

  /**
   * One relay pass: publishes batches until none is left (or the service stops), then the occasional
   * cleanup. Driven by the services' periodic loop (`OutboxRelayLoop` of `@cp/runtime`), woken on commit.
   */
  async pass(isStopping: () => boolean = () => false): Promise<void> {
    try {
      // A batch smaller than the limit was all there was; what commits later is the next poll's.
      const batchSize = this.options.batchSize ?? 100;
      let published: number;
      do {
        published = await this.relayBatch();
      } while (published === batchSize && !isStopping());
      await this.cleanupPublished();
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox relay pass failed; retrying on the next poll');
    }
  }

  /** Relays one batch; returns how many events were published. */
  async relayBatch(): Promise<number> {
    const batchSize = this.options.batchSize ?? 100;
    const published = await this.dataSource.transaction(async (manager) => {
      const rows = await manager
        .getRepository(OutboxEventEntity)
        .createQueryBuilder('event')
        .where('event.publishedAt IS NULL')
        .orderBy('event.seq', 'ASC')
        .limit(batchSize)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      // Sent together, in seq order on one connection (JetStream stores them in that order), and their
      // acknowledgements awaited together: one socket write for the batch instead of one round trip per event.
      // A failed one fails the batch, which is published again (same Nats-Msg-Id, de-duplicated).
      await Promise.all(
        rows.map((row) => {
          const headers = natsHeaders();
          headers.set('Content-Type', 'application/json');
          return this.js().publish(row.subject, encoder.encode(JSON.stringify(row.envelope)), { msgID: row.id, headers });
        }),
      );
      if (rows.length > 0) {
        await manager.update(
          OutboxEventEntity,
          rows.map((row) => row.id),
          { publishedAt: new Date() },
        );
      }
      return rows.length;
    });
    messagingMetrics.outboxPublished.inc(published);
    return published;
  }

  private async cleanupPublished(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 10 * 60_000) {
      return;
    }
    this.lastCleanup = now;
    const retainMs = this.options.retainPublishedMs ?? 24 * 3600_000;
    await this.dataSource.getRepository(OutboxEventEntity).delete({ publishedAt: LessThan(new Date(now - retainMs)) });
    const pending = await this.dataSource
      .getRepository(OutboxEventEntity)
      .createQueryBuilder('event')
      .where('event.publishedAt IS NULL')
      .getCount();
    messagingMetrics.outboxPending.set(pending);
  }
}
