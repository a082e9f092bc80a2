import { MigrationInterface, QueryRunner } from "typeorm";

export class ExpiredOrders1795313340263 implements MigrationInterface {
    name = 'ExpiredOrders1795313340263'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "expired_order" (
                "order_id" bigint NOT NULL,
                "expired_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_7893412616de8551be147d821b8" PRIMARY KEY ("order_id")
            )
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP TABLE "expired_order"
        `);
    }

}
