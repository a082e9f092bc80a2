import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace of the event a delivery was made for (W3C `traceparent`): the dispatcher claims deliveries from this
 * table, and each attempt continues the order's trace (issue 33).
 */
export class DeliveryTraceparent1796200000003 implements MigrationInterface {
  name = 'DeliveryTraceparent1796200000003';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery" ADD COLUMN IF NOT EXISTS "traceparent" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN IF EXISTS "traceparent"`);
  }
}
