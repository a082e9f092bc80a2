import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Anti-AI orders in progress, by creation time: the sweep of lost slot registrations reads those created in the
 * last minutes, because an anti-AI order with URLs starts at once (`inProgress`) while its files are still to be
 * fetched, and a lost registration would leave it without its fetches. Partial, so only the anti-AI orders in
 * progress are in it (the only type that starts before its files).
 */
export class StartedOrdersIndex1797300000000 implements MigrationInterface {
  name = 'StartedOrdersIndex1797300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_order_anti_ai_in_progress_created" ON "order" ("created_at") WHERE status = 'inProgress' AND type = 'antiAi'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_order_anti_ai_in_progress_created"`);
  }
}
