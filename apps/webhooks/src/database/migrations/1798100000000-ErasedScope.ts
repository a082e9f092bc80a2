import { MigrationInterface, QueryRunner } from 'typeorm';

/** The accounts and orders an operator erased, of which nothing is written here any more (`erased_scope`). */
export class ErasedScope1798100000000 implements MigrationInterface {
  name = 'ErasedScope1798100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "erased_scope" (
        "account_id" bigint NOT NULL,
        "order_id" bigint NOT NULL,
        "erased_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_erased_scope" PRIMARY KEY ("account_id", "order_id")
      )
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "erased_scope"`);
  }
}
