import { MigrationInterface, QueryRunner } from "typeorm";

export class OrderOptions1795479558202 implements MigrationInterface {
    name = 'OrderOptions1795479558202'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order"
            ADD "options" jsonb
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "order" DROP COLUMN "options"
        `);
    }

}
