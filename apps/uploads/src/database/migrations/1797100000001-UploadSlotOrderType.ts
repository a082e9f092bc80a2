import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The type of the order a slot belongs to: it decides the input limit an upload is held to as soon as it lands
 * (an object over it is deleted and the order fails). Null for slots registered before, or by an orders replica
 * that does not send it yet: those are held to the largest limit.
 */
export class UploadSlotOrderType1797100000001 implements MigrationInterface {
  name = 'UploadSlotOrderType1797100000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "upload_slot" ADD COLUMN IF NOT EXISTS "order_type" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "upload_slot" DROP COLUMN IF EXISTS "order_type"`);
  }
}
