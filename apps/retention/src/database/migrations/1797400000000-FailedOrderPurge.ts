import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A failed order's objects are deleted a grace period after its failure instead of at `expires_at`: the first
 * `failed` status event sets `failed_purge_at` (and brings `next_check_at` forward to it), and the sweep records
 * the early deletion in `failed_purged_at`, after which the row waits for its expiry as before. Both null for every
 * existing row: those keep their objects until `expires_at`, as they would have.
 */
export class FailedOrderPurge1797400000000 implements MigrationInterface {
  name = 'FailedOrderPurge1797400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "order_expiry" ADD "failed_purge_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "order_expiry" ADD "failed_purged_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "order_expiry" DROP COLUMN "failed_purged_at"`);
    await queryRunner.query(`ALTER TABLE "order_expiry" DROP COLUMN "failed_purge_at"`);
  }
}
