import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Relay on commit (issue 32): every statement that inserts outbox rows also queues a notification on the
 * channel `cp_outbox.<schema>`. It is part of the inserting transaction, so PostgreSQL delivers it when, and
 * only when, the rows commit; the relays of every replica LISTEN on it and publish at once instead of at their
 * next poll. A trigger rather than a call in `OutboxWriter`: every way rows reach the table notifies, and the
 * notification cannot be forgotten or sent outside the rows' transaction. Several inserts of one transaction
 * fold into one notification (same channel and payload). Cost: PostgreSQL serialises the commits of transactions
 * that notified (a lock held while the notification is queued at commit); one notification per statement, with an
 * empty payload, keeps that short.
 */
export class OutboxNotifyTrigger1795960000000 implements MigrationInterface {
  name = 'OutboxNotifyTrigger1795960000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Unqualified names: the migration's search_path is the service's schema.
    await queryRunner.query(`CREATE OR REPLACE FUNCTION "outbox_event_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('cp_outbox.' || TG_TABLE_SCHEMA, '');
        RETURN NULL;
      END $$`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS "outbox_event_notify" ON "outbox_event"`);
    await queryRunner.query(`CREATE TRIGGER "outbox_event_notify" AFTER INSERT ON "outbox_event" FOR EACH STATEMENT EXECUTE FUNCTION "outbox_event_notify"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS "outbox_event_notify" ON "outbox_event"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS "outbox_event_notify"()`);
  }
}
