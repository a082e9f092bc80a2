import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 36: which original an issuance was made from (its input object and the SHA-256 of its bytes), so an
 * extract order can test every recipient of the same original; and whether its payload was scrambled (issued since
 * issue 36: `issuedPayload(id)` of @cp/watermark) or is the serial itself (every issuance before).
 */
export class IssuanceOriginal1795900000000 implements MigrationInterface {
  name = 'IssuanceOriginal1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "issuance" ADD "input_key" text`);
    await queryRunner.query(`ALTER TABLE "issuance" ADD "input_sha256" text`);
    await queryRunner.query(`ALTER TABLE "issuance" ADD "scrambled" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`CREATE INDEX "idx_issuance_original_hash" ON "issuance" ("account_id", "input_sha256")`);
    await queryRunner.query(`CREATE INDEX "idx_issuance_original_key" ON "issuance" ("account_id", "input_key")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_issuance_original_key"`);
    await queryRunner.query(`DROP INDEX "idx_issuance_original_hash"`);
    await queryRunner.query(`ALTER TABLE "issuance" DROP COLUMN "scrambled"`);
    await queryRunner.query(`ALTER TABLE "issuance" DROP COLUMN "input_sha256"`);
    await queryRunner.query(`ALTER TABLE "issuance" DROP COLUMN "input_key"`);
  }
}
