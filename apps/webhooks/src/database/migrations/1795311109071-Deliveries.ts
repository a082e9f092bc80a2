import { MigrationInterface, QueryRunner } from "typeorm";

export class Deliveries1795311109071 implements MigrationInterface {
    name = 'Deliveries1795311109071'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "webhook_endpoint" (
                "id" SERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "name" text NOT NULL,
                "url" text NOT NULL,
                "is_active" boolean NOT NULL DEFAULT true,
                "secret_ciphertext" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_6c98112122b2b8a4f3984d2efa8" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_endpoint_account" ON "webhook_endpoint" ("account_id")
        `);
        await queryRunner.query(`
            CREATE TABLE "webhook_delivery" (
                "id" BIGSERIAL NOT NULL,
                "webhook_id" integer NOT NULL,
                "account_id" bigint NOT NULL,
                "source_event_id" text NOT NULL,
                "event_id" uuid NOT NULL,
                "event_type" text NOT NULL,
                "order_id" text NOT NULL,
                "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "data" jsonb NOT NULL,
                "download" jsonb,
                "status" text NOT NULL,
                "attempts" integer NOT NULL DEFAULT '0',
                "round_attempts" integer NOT NULL DEFAULT '0',
                "round" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP WITH TIME ZONE,
                "lease_token" uuid,
                "lease_expires_at" TIMESTAMP WITH TIME ZONE,
                "last_status_code" integer,
                "last_error" text,
                "last_attempt_at" TIMESTAMP WITH TIME ZONE,
                "completed_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_b1ae290239a778f12399db91354" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_due" ON "webhook_delivery" ("next_attempt_at")
            WHERE status = 'PENDING'
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_list" ON "webhook_delivery" ("webhook_id", "created_at")
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_webhook_delivery_source" ON "webhook_delivery" ("webhook_id", "source_event_id")
        `);
        await queryRunner.query(`
            CREATE TABLE "account_contact" (
                "account_id" bigint NOT NULL,
                "owner_email" text,
                "last_failure_email_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_c1a2704b3d8bd6eb9683a6c1af1" PRIMARY KEY ("account_id")
            )
        `);
        await queryRunner.query(`
            ALTER TABLE "webhook_delivery"
            ADD CONSTRAINT "FK_ef25cc28dcf88ea3dd81f39af2d" FOREIGN KEY ("webhook_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "webhook_delivery" DROP CONSTRAINT "FK_ef25cc28dcf88ea3dd81f39af2d"
        `);
        await queryRunner.query(`
            DROP TABLE "account_contact"
        `);
        await queryRunner.query(`
            DROP INDEX "webhooks"."uq_webhook_delivery_source"
        `);
        await queryRunner.query(`
            DROP INDEX "webhooks"."idx_webhook_delivery_list"
        `);
        await queryRunner.query(`
            DROP INDEX "webhooks"."idx_webhook_delivery_due"
        `);
        await queryRunner.query(`
            DROP TABLE "webhook_delivery"
        `);
        await queryRunner.query(`
            DROP INDEX "webhooks"."idx_webhook_endpoint_account"
        `);
        await queryRunner.query(`
            DROP TABLE "webhook_endpoint"
        `);
    }

}
