import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs held to their account's share of a work queue (`OutboxShare`): the relay counts an account's unfinished jobs
 * of one queue (`share_key`) and sends at most `share_limit` of them; a result or the end of the order frees one
 * (`share_released_at`).
 *
 * The relay's claim reads only what it may send (`OutboxRelay.relayClaimedBatch`): per share key, its oldest waiting
 * jobs up to the limit (`idx_outbox_event_share_waiting`, also walked for the keys themselves) and its sent, unfinished
 * ones (`idx_outbox_event_share_sent`); and the other rows in `seq` order without walking the held jobs
 * (`idx_outbox_event_unpublished_plain`). With one account's 100,000 held jobs a claim reads a few index pages per key
 * (25–35 ms measured by the outside review, against about 300 ms for a claim that ranked the whole backlog).
 * `idx_outbox_event_share_order` serves the release of an order's jobs and the stuck-order sweep's check.
 *
 * Each index build reads the whole table once (the day of published rows kept) under a lock that holds the service's
 * outbox inserts meanwhile: a few seconds on a large outbox; the indexes themselves are small. An operator with a
 * large outbox can build them beforehand with CONCURRENTLY (the same statements; IF NOT EXISTS keeps them).
 */
export class OutboxShares1798000000000 implements MigrationInterface {
  name = 'OutboxShares1798000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['share_key text', 'share_order text', 'share_unit text', 'share_limit integer', 'share_released_at TIMESTAMP WITH TIME ZONE']) {
      const [name, ...type] = column.split(' ');
      await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "${name}" ${type.join(' ')}`);
    }
    for (const index of OUTBOX_SHARE_INDEXES) {
      await queryRunner.query(index);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['idx_outbox_event_share_order', 'idx_outbox_event_share_sent', 'idx_outbox_event_share_waiting', 'idx_outbox_event_unpublished_plain']) {
      await queryRunner.query(`DROP INDEX IF EXISTS "${name}"`);
    }
    for (const column of ['share_released_at', 'share_limit', 'share_unit', 'share_order', 'share_key']) {
      await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "${column}"`);
    }
  }
}

/** The statements that build the share indexes (docs/operations.md: an operator may run them CONCURRENTLY first). */
export const OUTBOX_SHARE_INDEXES = [
  `CREATE INDEX IF NOT EXISTS "idx_outbox_event_unpublished_plain" ON "outbox_event" ("seq") WHERE published_at IS NULL AND share_key IS NULL`,
  `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_waiting" ON "outbox_event" ("share_key", "seq") WHERE share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NULL`,
  `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_sent" ON "outbox_event" ("share_key", "published_at") WHERE share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_order" ON "outbox_event" ("share_order") WHERE share_key IS NOT NULL AND share_released_at IS NULL`,
];
