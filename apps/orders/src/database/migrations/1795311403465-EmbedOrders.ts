import { MigrationInterface, QueryRunner } from "typeorm";

export class EmbedOrders1795311403465 implements MigrationInterface {
    name = 'EmbedOrders1795311403465'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "idempotency_record" (
                "account_id" bigint NOT NULL,
                "mode" text NOT NULL,
                "operation" text NOT NULL,
                "idempotency_key" text NOT NULL,
                "request_hash" character(64) NOT NULL,
                "order_id" bigint NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_0bd8e531cd6166167eaebdf4e5f" PRIMARY KEY (
                    "account_id",
                    "mode",
                    "operation",
                    "idempotency_key"
                )
            )
        `);
        await queryRunner.query(`
            CREATE TABLE "order_file" (
                "id" BIGSERIAL NOT NULL,
                "order_id" bigint NOT NULL,
                "position" integer NOT NULL,
                "role" text NOT NULL,
                "file_name" text NOT NULL,
                "source_url" text,
                "media_kind" text NOT NULL,
                "status" text NOT NULL,
                "size" bigint,
                CONSTRAINT "PK_e7d221312cd948a278ecc889807" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_order_file_order" ON "order_file" ("order_id", "position")
        `);
        await queryRunner.query(`
            CREATE TABLE "order_output" (
                "file_id" text NOT NULL,
                "order_id" bigint NOT NULL,
                "input_file_id" bigint NOT NULL,
                "input_position" integer NOT NULL,
                "output_index" integer NOT NULL,
                "watermark_text" text NOT NULL,
                "status" text NOT NULL,
                "media_kind" text NOT NULL,
                "object_key" text,
                "failure_code" text,
                CONSTRAINT "PK_6d32c9e59b24dbe7c285ffdcfc1" PRIMARY KEY ("file_id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_order_output_order" ON "order_output" ("order_id")
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "name"
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "credits_charged" integer NOT NULL DEFAULT '0'
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "package_key" text
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "result" jsonb
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "completed_at" TIMESTAMP WITH TIME ZONE
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "failed_at" TIMESTAMP WITH TIME ZONE
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_order_pending_created" ON "order" ("created_at")
            WHERE status = 'pending'
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "orders"."idx_order_pending_created"
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "failed_at"
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "completed_at"
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "result"
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "package_key"
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "credits_charged"
        `);
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "name" text NOT NULL
        `);
        await queryRunner.query(`
            DROP INDEX "orders"."idx_order_output_order"
        `);
        await queryRunner.query(`
            DROP TABLE "order_output"
        `);
        await queryRunner.query(`
            DROP INDEX "orders"."idx_order_file_order"
        `);
        await queryRunner.query(`
            DROP TABLE "order_file"
        `);
        await queryRunner.query(`
            DROP TABLE "idempotency_record"
        `);
    }

}
