import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed orders by (`failed_at`, `id`): the retention service's reconciliation of failed orders
 * (`orders.failed-orders`) walks them in pages from a cursor. Partial (`failed_at IS NOT NULL`): only failed orders,
 * a small share of the table. A plain build in the migration's transaction, not CONCURRENTLY, for the reason given
 * in `OrderExpiresIndex1797300000001`; `IF NOT EXISTS`: an operator with a large order table builds it beforehand
 * with CONCURRENTLY (docs/operations.md), and the migration then finds it.
 */
export class OrderFailedIndex1797500000000 implements MigrationInterface {
  name = 'OrderFailedIndex1797500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_order_failed" ON "order" ("failed_at", "id") WHERE failed_at IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_order_failed"`);
  }
}
