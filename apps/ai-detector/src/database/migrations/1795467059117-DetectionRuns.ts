import { MigrationInterface, QueryRunner } from "typeorm";

export class DetectionRuns1795467059117 implements MigrationInterface {
    name = 'DetectionRuns1795467059117'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "detection_evidence" (
                "id" BIGSERIAL NOT NULL,
                "run_id" bigint NOT NULL,
                "signal" text NOT NULL,
                "finding" text NOT NULL,
                "description" text NOT NULL,
                "direction" text NOT NULL,
                "weight" double precision NOT NULL,
                "details" jsonb NOT NULL,
                CONSTRAINT "PK_8cdea28ffcd09b206f779abef87" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_detection_evidence_run" ON "detection_evidence" ("run_id")
        `);
        await queryRunner.query(`
            CREATE TABLE "detection_run" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "order_id" bigint NOT NULL,
                "file_id" text NOT NULL,
                "status" text NOT NULL,
                "probability" double precision,
                "category" text,
                "no_evidence" boolean,
                "failure_code" text,
                "images" jsonb,
                "duration_ms" integer,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_b37b3182abc78c602780ad028c0" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_detection_run_file" ON "detection_run" ("order_id", "file_id")
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "aidetect"."uq_detection_run_file"
        `);
        await queryRunner.query(`
            DROP TABLE "detection_run"
        `);
        await queryRunner.query(`
            DROP INDEX "aidetect"."idx_detection_evidence_run"
        `);
        await queryRunner.query(`
            DROP TABLE "detection_evidence"
        `);
    }

}
