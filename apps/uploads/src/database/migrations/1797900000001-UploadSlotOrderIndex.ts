import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The slots of one order (generated with `npm run migration:generate`, renumbered after the last migration): every
 * failed order's slots are locked and closed, and the objects of its failed slots read (`lockOfOrder`,
 * `closedObjectsOfOrder`), in a table nothing empties.
 */
export class UploadSlotOrderIndex1797900000001 implements MigrationInterface {
  name = 'UploadSlotOrderIndex1797900000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_upload_slot_order" ON "upload_slot" ("order_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_upload_slot_order"`);
  }
}
