import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay's claim reads only what it may send (`OutboxRelay.relayClaimedBatch`): per share key, its oldest waiting
 * jobs up to the limit (`idx_outbox_event_share_waiting`, also walked for the keys themselves) and its sent, unfinished
 * ones (`idx_outbox_event_share_sent`); and the other rows in `seq` order without walking the held jobs
 * (`idx_outbox_event_unpublished_plain`). Outside review: with one account's 100,000 held jobs, the claim ranked them
 * all and walked past them on every pass (about 340 ms each, a relay pass woken by every commit), where it now reads a
 * few index pages per key (under 20 ms). `idx_outbox_event_share_open` served only the old claim.
 *
 * Each build reads the whole table once (the day of published rows kept) under a lock that holds the service's
 * outbox inserts meanwhile: a few seconds on a large outbox; the indexes themselves are small.
 */
export class OutboxShareClaimIndexes1798000000001 implements MigrationInterface {
  name = 'OutboxShareClaimIndexes1798000000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_unpublished_plain" ON "outbox_event" ("seq") WHERE published_at IS NULL AND share_key IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_waiting" ON "outbox_event" ("share_key", "seq") WHERE share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_sent" ON "outbox_event" ("share_key", "published_at") WHERE share_key IS NOT NULL AND share_released_at IS NULL AND published_at IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_share_open"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_open" ON "outbox_event" ("share_key", "seq") WHERE share_key IS NOT NULL AND share_released_at IS NULL`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_share_sent"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_share_waiting"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_unpublished_plain"`);
  }
}
