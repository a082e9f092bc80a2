import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The key mode a webhook belongs to. Webhooks made before it were shared by both key modes; they become `live`,
 * the side that already received every event, so no existing receiver loses a delivery. The default stays: during
 * a rolling update, replicas of the previous release still create webhooks without a mode, and theirs are live as
 * before (this release always states the mode).
 */
export class WebhookEndpointMode1796300000000 implements MigrationInterface {
  name = 'WebhookEndpointMode1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD COLUMN "mode" text NOT NULL DEFAULT 'live'`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "ck_webhook_endpoint_mode" CHECK ("mode" IN ('live', 'test'))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "ck_webhook_endpoint_mode"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "mode"`);
  }
}
