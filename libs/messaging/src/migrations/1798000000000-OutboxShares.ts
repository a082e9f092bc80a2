import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Jobs held to their account's share of a work queue (`OutboxShare`): the relay counts an account's unfinished jobs
 * of one queue (`share_key`) and sends at most `share_limit` of them; a result or the end of the order frees one
 * (`share_released_at`). The two partial indexes hold only the rows still counted or waiting, so they stay small
 * however long published rows are kept, and every other service's rows (never shared) are in neither.
 */
export class OutboxShares1798000000000 implements MigrationInterface {
  name = 'OutboxShares1798000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "share_key" text`);
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "share_order" text`);
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "share_unit" text`);
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "share_limit" integer`);
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "share_released_at" TIMESTAMP WITH TIME ZONE`);
    // New columns, no row has a key yet: both indexes are empty when built, so no lock is held for long.
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_open" ON "outbox_event" ("share_key", "seq") WHERE share_key IS NOT NULL AND share_released_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_outbox_event_share_order" ON "outbox_event" ("share_order") WHERE share_key IS NOT NULL AND share_released_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_share_order"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_share_open"`);
    for (const column of ['share_released_at', 'share_limit', 'share_unit', 'share_order', 'share_key']) {
      await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "${column}"`);
    }
  }
}
