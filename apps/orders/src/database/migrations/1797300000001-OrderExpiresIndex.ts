import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders by (`expires_at`, `id`): the retention service's reconciliation (`orders.expiry-schedules`) walks them in
 * pages from a cursor, and without it each page would sort the whole table. A plain build in the migration's
 * transaction, not CONCURRENTLY: a concurrent build waits for every older snapshot in the database, and another
 * service's migrator waiting for the migrations lock holds one, so the two would wait for each other. The build
 * holds back new orders while it runs (seconds for millions of rows: a timestamp and a bigint). `IF NOT EXISTS`:
 * an operator with a large order table builds it beforehand with CONCURRENTLY (docs/operations.md), and the
 * migration then finds it.
 */
export class OrderExpiresIndex1797300000001 implements MigrationInterface {
  name = 'OrderExpiresIndex1797300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_order_expires" ON "order" ("expires_at", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_order_expires"`);
  }
}
