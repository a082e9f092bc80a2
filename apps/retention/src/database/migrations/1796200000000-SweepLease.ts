import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The sweep claims its batch with a lease (`leased_until`) in a short transaction and works outside any
 * transaction; test orders are scheduled too (`mode`), their objects deleted without asking orders to expire them.
 */
export class SweepLease1796200000000 implements MigrationInterface {
    name = 'SweepLease1796200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "order_expiry" ADD "leased_until" TIMESTAMP WITH TIME ZONE`);
        await queryRunner.query(`ALTER TABLE "order_expiry" ADD "mode" text NOT NULL DEFAULT 'live'`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "order_expiry" DROP COLUMN "mode"`);
        await queryRunner.query(`ALTER TABLE "order_expiry" DROP COLUMN "leased_until"`);
    }

}
