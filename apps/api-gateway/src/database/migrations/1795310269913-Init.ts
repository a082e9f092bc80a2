import { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795310269913 implements MigrationInterface {
    name = 'Init1795310269913'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "gateway"`);
        await queryRunner.query(`
            CREATE TABLE "account" (
                "id" BIGSERIAL NOT NULL,
                "name" text NOT NULL,
                "plan" text NOT NULL,
                "owner_email" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_54115ee388cdb6d86bb4bf5b2ea" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE TABLE "api_key" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "mode" text NOT NULL,
                "key_hash" character(64) NOT NULL,
                "key_prefix" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_b1bd840641b8acbaad89c3d8d11" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "IDX_e1c10c0d45f5331063b62d9573" ON "api_key" ("account_id")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_3c9751d2a6011ba13e27838105" ON "api_key" ("key_hash")
        `);
        await queryRunner.query(`
            CREATE TABLE "rate_limit_window" (
                "account_id" bigint NOT NULL,
                "window_start" TIMESTAMP WITH TIME ZONE NOT NULL,
                "request_count" integer NOT NULL,
                CONSTRAINT "PK_caea12ab2573c8c3bfbc382e2b2" PRIMARY KEY ("account_id", "window_start")
            )
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP TABLE "rate_limit_window"
        `);
        await queryRunner.query(`
            DROP INDEX "gateway"."IDX_3c9751d2a6011ba13e27838105"
        `);
        await queryRunner.query(`
            DROP INDEX "gateway"."IDX_e1c10c0d45f5331063b62d9573"
        `);
        await queryRunner.query(`
            DROP TABLE "api_key"
        `);
        await queryRunner.query(`
            DROP TABLE "account"
        `);
    }

}
