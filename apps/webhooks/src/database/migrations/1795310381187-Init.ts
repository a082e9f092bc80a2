import { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795310381187 implements MigrationInterface {
    name = 'Init1795310381187'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "webhooks"`);
        await queryRunner.query(`
            CREATE TABLE "outbox_event" (
                "id" uuid NOT NULL,
                "seq" BIGSERIAL NOT NULL,
                "subject" text NOT NULL,
                "envelope" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "published_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_cc0c9e40998e45ecfc5e313429d" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_outbox_event_unpublished" ON "outbox_event" ("seq")
            WHERE published_at IS NULL
        `);
        await queryRunner.query(`
            CREATE TABLE "inbox_record" (
                "consumer" text NOT NULL,
                "event_id" text NOT NULL,
                "handled_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_cee1297061a0822c5f955f5ceb5" PRIMARY KEY ("consumer", "event_id")
            )
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP TABLE "inbox_record"
        `);
        await queryRunner.query(`
            DROP INDEX "webhooks"."idx_outbox_event_unpublished"
        `);
        await queryRunner.query(`
            DROP TABLE "outbox_event"
        `);
    }

}
