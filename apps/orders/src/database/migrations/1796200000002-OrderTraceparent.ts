import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace of an order's creation (W3C `traceparent`): a later request about the order (the AI-detection
 * confirmation) continues it, so the order keeps one trace from the first request to its webhook (issue 33).
 */
export class OrderTraceparent1796200000002 implements MigrationInterface {
  name = 'OrderTraceparent1796200000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "order" ADD COLUMN IF NOT EXISTS "traceparent" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "order" DROP COLUMN IF EXISTS "traceparent"`);
  }
}
