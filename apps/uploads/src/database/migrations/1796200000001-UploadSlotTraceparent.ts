import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace of the order creation that opened a slot (W3C `traceparent`): the upload arrives later through a
 * storage notification that carries none, and the file's `file.uploaded` continues the order's trace (issue 33).
 */
export class UploadSlotTraceparent1796200000001 implements MigrationInterface {
  name = 'UploadSlotTraceparent1796200000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "upload_slot" ADD COLUMN IF NOT EXISTS "traceparent" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "upload_slot" DROP COLUMN IF EXISTS "traceparent"`);
  }
}
