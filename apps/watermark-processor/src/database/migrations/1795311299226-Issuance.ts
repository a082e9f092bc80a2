import { MigrationInterface, QueryRunner } from "typeorm";

export class Issuance1795311299226 implements MigrationInterface {
    name = 'Issuance1795311299226'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "issuance" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "order_id" bigint NOT NULL,
                "output_file_id" text NOT NULL,
                "watermark_text" text NOT NULL,
                "algorithm" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_bb07b4f10059d7d7890e247f1af" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_issuance_output" ON "issuance" ("output_file_id")
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "watermark"."uq_issuance_output"
        `);
        await queryRunner.query(`
            DROP TABLE "issuance"
        `);
    }

}
