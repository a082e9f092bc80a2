import { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795310292846 implements MigrationInterface {
    name = 'Init1795310292846'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "orders"`);
        await queryRunner.query(`
            CREATE TABLE "credit_balance" (
                "account_id" bigint NOT NULL,
                "balance" integer NOT NULL DEFAULT '0',
                CONSTRAINT "ck_credit_balance_not_negative" CHECK ("balance" >= 0),
                CONSTRAINT "PK_5cb42493e38d8bd5c74e4c91ad6" PRIMARY KEY ("account_id")
            )
        `);
        await queryRunner.query(`
            CREATE TABLE "credit_ledger_entry" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "amount" integer NOT NULL,
                "reference" text NOT NULL,
                "reason" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_f16ff080bd4d67afb2f5413408d" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_credit_ledger_reference" ON "credit_ledger_entry" ("account_id", "reference")
        `);
        await queryRunner.query(`
            CREATE TABLE "order" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "mode" text NOT NULL,
                "type" text NOT NULL,
                "api_version" text NOT NULL,
                "name" text NOT NULL,
                "status" text NOT NULL,
                "processing_delayed" boolean NOT NULL DEFAULT false,
                "failure_code" text,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_1031171c13130102495201e3e20" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_order_account" ON "order" ("account_id", "mode", "created_at")
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "orders"."idx_order_account"
        `);
        await queryRunner.query(`
            DROP TABLE "order"
        `);
        await queryRunner.query(`
            DROP INDEX "orders"."uq_credit_ledger_reference"
        `);
        await queryRunner.query(`
            DROP TABLE "credit_ledger_entry"
        `);
        await queryRunner.query(`
            DROP TABLE "credit_balance"
        `);
    }

}
