import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cursor of the reconciliation of failed orders with orders (`failed_order_reconciliation`): the early deletion
 * of a failed order's objects no longer depends on its `failed` status event alone. Its one row is made here, with
 * no cursor: the first pass walks every failed order from the oldest.
 */
export class FailedOrderReconciliation1797500000000 implements MigrationInterface {
  name = 'FailedOrderReconciliation1797500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "failed_order_reconciliation" (
        "source" text NOT NULL,
        "after_failed_at" TIMESTAMP WITH TIME ZONE,
        "after_order_id" bigint,
        "leased_until" TIMESTAMP WITH TIME ZONE,
        "rows_reconciled" bigint NOT NULL DEFAULT '0',
        "advanced_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_failed_order_reconciliation" PRIMARY KEY ("source")
      )
    `);
    await queryRunner.query(`INSERT INTO "failed_order_reconciliation" ("source") VALUES ('orders')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "failed_order_reconciliation"`);
  }
}
