import { MigrationInterface, QueryRunner } from "typeorm";

export class OrderExpiry1795312955260 implements MigrationInterface {
    name = 'OrderExpiry1795312955260'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "order_expiry" (
                "order_id" bigint NOT NULL,
                "account_id" bigint NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "phase" text NOT NULL,
                "next_check_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "purged_at" TIMESTAMP WITH TIME ZONE,
                "objects_deleted" integer NOT NULL DEFAULT '0',
                CONSTRAINT "PK_a4fe4bc15ab727ce7cacb6f4b26" PRIMARY KEY ("order_id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "idx_order_expiry_due" ON "order_expiry" ("next_check_at")
            WHERE phase <> 'done'
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "retention"."idx_order_expiry_due"
        `);
        await queryRunner.query(`
            DROP TABLE "order_expiry"
        `);
    }

}
