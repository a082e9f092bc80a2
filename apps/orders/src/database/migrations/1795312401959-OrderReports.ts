import { MigrationInterface, QueryRunner } from "typeorm";

export class OrderReports1795312401959 implements MigrationInterface {
    name = 'OrderReports1795312401959'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "order_report" (
                "order_id" bigint NOT NULL,
                "locale" text NOT NULL,
                "status" text NOT NULL,
                "changed_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_9a960a2d3b70518dc6eafb6a929" PRIMARY KEY ("order_id", "locale")
            )
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP TABLE "order_report"
        `);
    }

}
