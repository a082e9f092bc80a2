import { MigrationInterface, QueryRunner } from 'typeorm';

/** The accounts and orders an operator erased (`ErasedScopeEntity`), in the schema of each service that lists it. */
export class ErasedScope1797600000000 implements MigrationInterface {
  name = 'ErasedScope1797600000000';

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
