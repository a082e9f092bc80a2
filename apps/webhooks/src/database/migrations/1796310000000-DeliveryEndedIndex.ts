import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ended deliveries by the time they ended, for the pruning of the delivery log (`pruneEnded`): each batch reads the
 * oldest ones from this index instead of scanning the table. `completed_at` is set exactly when a delivery is
 * SUCCESS or FAILED. A plain build in the migration's transaction, not CONCURRENTLY: a concurrent build waits for
 * every older snapshot in the database, and another replica waiting for the migrations lock holds one, so the two
 * would wait for each other. The build holds back new deliveries of the table while it runs (seconds for millions
 * of rows: one timestamp column, ended rows only). `IF NOT EXISTS`: an operator with a large delivery log builds it
 * beforehand with CONCURRENTLY (docs/operations.md), and the migration then finds it.
 */
export class DeliveryEndedIndex1796310000000 implements MigrationInterface {
  name = 'DeliveryEndedIndex1796310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_webhook_delivery_ended" ON "webhook_delivery" ("completed_at") WHERE completed_at IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_webhook_delivery_ended"`);
  }
}
