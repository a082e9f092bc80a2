import { ALL_STREAMS, Streams } from '@cp/contracts';
import { tableSql } from '@cp/database';
import { DataSource } from 'typeorm';
import { InboxRecordEntity } from './inbox-record.entity';

/** Longest a message is kept by a stream consumers read (EVENTS, JOBS, STORAGE_EVENTS), in seconds. */
const LONGEST_READ_STREAM_SECONDS = Math.max(...ALL_STREAMS.filter((stream) => stream.name !== Streams.parked.name).map((stream) => stream.maxAgeSeconds));

/** Room for clocks, a relay that waited before publishing, and a replay made on the parked message's last day. */
const MARGIN_MS = 24 * 3600_000;

/**
 * How long an inbox row outlives the handling it records: as long as the same event can still reach the consumer.
 * The longest way back, from the stream declarations: its own stream keeps it (redelivery, a redirected copy, a
 * consumer read again from the start), a consumer that gave up parks it on PARKED (kept 30 days), an operator
 * replays it from there onto its own stream, which keeps that copy as long again; then a margin. With today's
 * streams: 7 + 30 + 7 days + 1 = 45 days.
 */
export const INBOX_RETENTION_MS = (2 * LONGEST_READ_STREAM_SECONDS + Streams.parked.maxAgeSeconds) * 1000 + MARGIN_MS;

export interface InboxPruneLimits {
  /** Rows deleted by one statement: short locks, a short statement, whatever the table's size. */
  batchSize: number;
  /** Statements per call: the call runs in the outbox relay's pass, which must go on relaying soon. */
  maxBatches: number;
}

/** 100,000 rows per call; the relay's housekeeping calls it every ten minutes in every replica. */
export const DEFAULT_INBOX_PRUNE_LIMITS: InboxPruneLimits = { batchSize: 5000, maxBatches: 20 };

/**
 * Ages out the inbox (`inbox_record`, one row per consumer and event handled), which nothing else deletes: the
 * outbox relay's periodic housekeeping calls `prune` beside its own cleanup and the job attempts' one.
 */
export class InboxRecordsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly limits: InboxPruneLimits = DEFAULT_INBOX_PRUNE_LIMITS,
  ) {}

  /**
   * Deletes rows handled more than INBOX_RETENTION_MS before `now`, oldest first, in batches (the index on
   * `handled_at` finds them); returns how many went. Rows another replica is deleting are skipped, not waited for.
   * What is left past `maxBatches` goes at the next call.
   */
  async prune(now: number): Promise<number> {
    const table = tableSql(this.dataSource.manager, InboxRecordEntity);
    const before = new Date(now - INBOX_RETENTION_MS);
    let deleted = 0;
    for (let batch = 0; batch < this.limits.maxBatches; batch++) {
      const rows = await this.dataSource.query<Array<{ count: number }>>(
        `WITH gone AS (
           DELETE FROM ${table} WHERE (consumer, event_id) IN (
             SELECT consumer, event_id FROM ${table} WHERE handled_at < $1 ORDER BY handled_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS count FROM gone`,
        [before, this.limits.batchSize],
      );
      const count = rows[0]?.count ?? 0;
      deleted += count;
      if (count < this.limits.batchSize) {
        break;
      }
    }
    return deleted;
  }
}
