import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cursor of the reconciliation with orders (`schedule_reconciliation`): the schedule no longer depends on status
 * events alone. Its one row is made here, with no cursor: the first pass walks every order from the oldest.
 */
export class ScheduleReconciliation1797300000001 implements MigrationInterface {
  name = 'ScheduleReconciliation1797300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "schedule_reconciliation" (
        "source" text NOT NULL,
        "after_expires_at" TIMESTAMP WITH TIME ZONE,
        "after_order_id" bigint,
        "leased_until" TIMESTAMP WITH TIME ZONE,
        "rows_reconciled" bigint NOT NULL DEFAULT '0',
        "advanced_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_schedule_reconciliation" PRIMARY KEY ("source")
      )
    `);
    await queryRunner.query(`INSERT INTO "schedule_reconciliation" ("source") VALUES ('orders')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "schedule_reconciliation"`);
  }
}
