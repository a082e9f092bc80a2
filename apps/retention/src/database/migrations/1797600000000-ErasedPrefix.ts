import { MigrationInterface, QueryRunner } from 'typeorm';

/** The prefixes an operator erased, looked at again for objects that jobs in flight wrote late (`erased_prefix`). */
export class ErasedPrefix1797600000000 implements MigrationInterface {
  name = 'ErasedPrefix1797600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "erased_prefix" (
        "prefix" text NOT NULL,
        "recheck_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "final_recheck_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "leased_until" TIMESTAMP WITH TIME ZONE,
        "objects_deleted" integer NOT NULL DEFAULT '0',
        CONSTRAINT "PK_erased_prefix" PRIMARY KEY ("prefix")
      )
    `);
    await queryRunner.query(`CREATE INDEX "idx_erased_prefix_due" ON "erased_prefix" ("recheck_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "erased_prefix"`);
  }
}
