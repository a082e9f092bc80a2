import { MigrationInterface, QueryRunner } from "typeorm";

export class OrderTypeResult1795480727223 implements MigrationInterface {
    name = 'OrderTypeResult1795480727223'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "type_result" jsonb
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "type_result"
        `);
    }

}
