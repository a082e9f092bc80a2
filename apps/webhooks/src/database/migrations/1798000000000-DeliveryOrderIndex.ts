import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries by order: an expired order's deliveries are deleted (`deleteOfOrder`) and the order timeline reads
 * them, each without scanning the delivery log. A plain build in the migration's transaction, as
 * `DeliveryEndedIndex1796310000000` explains (a concurrent build and a replica waiting for the migrations lock
 * would wait for each other); `IF NOT EXISTS`: an operator with a large delivery log builds it beforehand with
 * CONCURRENTLY (docs/operations.md), and the migration then finds it.
 */
export class DeliveryOrderIndex1798000000000 implements MigrationInterface {
  name = 'DeliveryOrderIndex1798000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_webhook_delivery_order" ON "webhook_delivery" ("order_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_webhook_delivery_order"`);
  }
}
