import { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795310376377 implements MigrationInterface {
    name = 'Init1795310376377'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "aidetect"`);
    }

    public async down(_queryRunner: QueryRunner): Promise<void> {
        // The outbox and inbox tables are MessagingTables1795310000000's (@cp/messaging).
    }

}
