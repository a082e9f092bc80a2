import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reconciliation reads only waiting live slots created within the upload window and the longest upload URL
 * after it (`findWaiting`): an index on their creation time, so the slots of failed, expired or abandoned orders
 * (never deleted) are left out without being read. It replaces the index on `last_checked_at`, which every check
 * rewrote and which the query no longer reads by (the few slots in the range are sorted).
 */
export class UploadSlotReconcileIndex1797800000001 implements MigrationInterface {
  name = 'UploadSlotReconcileIndex1797800000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_upload_slot_reconcile" ON "upload_slot" ("created_at") WHERE status = 'awaiting' AND mode = 'live'`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_upload_slot_awaiting"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_upload_slot_awaiting" ON "upload_slot" ("last_checked_at") WHERE status = 'awaiting'`);
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_upload_slot_reconcile"`);
  }
}
