import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Extract's result and how it was reached move into `type_result`, the column every order type keeps its own
 * result in (issue 31: order-type knowledge only in its folder). Only extract orders ever had a `result`.
 */
export class ExtractResultInTypeResult1795720000000 implements MigrationInterface {
    name = 'ExtractResultInTypeResult1795720000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            UPDATE "order" SET "type_result" = jsonb_build_object('result', "result", 'details', "result_details")
            WHERE "result" IS NOT NULL
        `);
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "result_details", DROP COLUMN "result"
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order" ADD "result" jsonb, ADD "result_details" jsonb
        `);
        await queryRunner.query(`
            UPDATE "order" SET "result" = "type_result" -> 'result', "result_details" = "type_result" -> 'details', "type_result" = NULL
            WHERE "type_result" ? 'result'
        `);
    }

}
