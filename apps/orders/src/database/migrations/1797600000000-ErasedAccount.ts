import { MigrationInterface, QueryRunner } from 'typeorm';

/** The accounts an operator erased, whose ledger is never opened again and for which no order is created (`erased_account`). */
export class ErasedAccount1797600000000 implements MigrationInterface {
  name = 'ErasedAccount1797600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "erased_account" (
        "account_id" bigint NOT NULL,
        "erased_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_erased_account" PRIMARY KEY ("account_id")
      )
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "erased_account"`);
  }
}
