import { MigrationInterface, QueryRunner } from "typeorm";

export class Reports1795312572923 implements MigrationInterface {
    name = 'Reports1795312572923'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "report" (
                "order_id" bigint NOT NULL,
                "locale" text NOT NULL,
                "account_id" bigint NOT NULL,
                "mode" text NOT NULL,
                "report_type" text NOT NULL,
                "status" text NOT NULL,
                "attempt" integer NOT NULL,
                "failed_attempts" integer NOT NULL DEFAULT '0',
                "requeues" integer NOT NULL DEFAULT '0',
                "failure_code" text,
                "failure_retryable" boolean,
                "object_bucket" text,
                "object_key" text,
                "pdf_sha256" text,
                "pdf_size" integer,
                "order_expired" boolean NOT NULL DEFAULT false,
                "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "status_changed_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "completed_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_9f6cbbaeb0771b6222f6595ca06" PRIMARY KEY ("order_id", "locale")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_report_unfinished" ON "report" ("status_changed_at")
            WHERE status IN ('queued', 'processing')
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "reports"."idx_report_unfinished"
        `);
        await queryRunner.query(`
            DROP TABLE "report"
        `);
    }

}
