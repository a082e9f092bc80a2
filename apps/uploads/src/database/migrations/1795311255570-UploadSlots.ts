import { MigrationInterface, QueryRunner } from "typeorm";

export class UploadSlots1795311255570 implements MigrationInterface {
    name = 'UploadSlots1795311255570'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "upload_slot" (
                "file_id" bigint NOT NULL,
                "order_id" bigint NOT NULL,
                "account_id" bigint NOT NULL,
                "mode" text NOT NULL,
                "bucket" text NOT NULL,
                "object_key" text NOT NULL,
                "source_url" text,
                "status" text NOT NULL,
                "size" bigint,
                "failure_reason" text,
                "last_checked_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_caf3527bc82ed1330dceb584876" PRIMARY KEY ("file_id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_upload_slot_awaiting" ON "upload_slot" ("last_checked_at")
            WHERE status = 'awaiting'
        `);
        await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_upload_slot_object" ON "upload_slot" ("bucket", "object_key")
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "uploads"."uq_upload_slot_object"
        `);
        await queryRunner.query(`
            DROP INDEX "uploads"."idx_upload_slot_awaiting"
        `);
        await queryRunner.query(`
            DROP TABLE "upload_slot"
        `);
    }

}
