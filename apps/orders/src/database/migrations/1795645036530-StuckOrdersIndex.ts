import { MigrationInterface, QueryRunner } from "typeorm";

export class StuckOrdersIndex1795645036530 implements MigrationInterface {
    name = 'StuckOrdersIndex1795645036530'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE INDEX "idx_order_in_progress_updated" ON "order" ("updated_at")
            WHERE status = 'inProgress'
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP INDEX "orders"."idx_order_in_progress_updated"
        `);
    }

}
