import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox and inbox tables every service has, shipped once by `@cp/messaging` and listed first in each
 * service's migrations. Idempotent (IF NOT EXISTS, the same names and constraint names the services' first
 * migrations used to create), so a database that already has them from an older first migration upgrades
 * without a change.
 */
export class MessagingTables1795310000000 implements MigrationInterface {
  name = 'MessagingTables1795310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE IF NOT EXISTS "outbox_event" (
        "id" uuid NOT NULL,
        "seq" BIGSERIAL NOT NULL,
        "subject" text NOT NULL,
        "envelope" jsonb NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "published_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_cc0c9e40998e45ecfc5e313429d" PRIMARY KEY ("id")
      )
    `);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_outbox_event_unpublished" ON "outbox_event" ("seq") WHERE published_at IS NULL`);
    await queryRunner.query(`
      CREATE TABLE IF NOT EXISTS "inbox_record" (
        "consumer" text NOT NULL,
        "event_id" text NOT NULL,
        "handled_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_cee1297061a0822c5f955f5ceb5" PRIMARY KEY ("consumer", "event_id")
      )
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "inbox_record"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_outbox_event_unpublished"`);
    await queryRunner.query(`DROP TABLE IF EXISTS "outbox_event"`);
  }
}
