import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders in progress, by creation time: the sweep of lost slot registrations reads those created in the last
 * minutes, because an order that starts at once (anti-AI with URLs) is `inProgress` while its files are still to be
 * fetched, and a lost registration would leave it without its fetches.
 */
export class StartedOrdersIndex1797300000000 implements MigrationInterface {
  name = 'StartedOrdersIndex1797300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_order_in_progress_created" ON "order" ("created_at") WHERE status = 'inProgress'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_order_in_progress_created"`);
  }
}
