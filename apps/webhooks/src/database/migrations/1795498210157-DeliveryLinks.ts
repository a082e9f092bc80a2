import { MigrationInterface, QueryRunner } from "typeorm";

export class DeliveryLinks1795498210157 implements MigrationInterface {
    name = 'DeliveryLinks1795498210157'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "webhook_delivery"
            ADD "links" jsonb
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "webhook_delivery" DROP COLUMN "links"
        `);
    }

}
