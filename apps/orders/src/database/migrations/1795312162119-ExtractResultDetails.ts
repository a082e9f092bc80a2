import { MigrationInterface, QueryRunner } from "typeorm";

export class ExtractResultDetails1795312162119 implements MigrationInterface {
    name = 'ExtractResultDetails1795312162119'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "result_details" jsonb
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "result_details"
        `);
    }

}
