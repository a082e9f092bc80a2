import { MigrationInterface, QueryRunner } from 'typeorm';

/** The W3C `traceparent` of the transaction that wrote an outbox row, sent with it by the relay (issue 33). */
export class OutboxTraceparent1796200000000 implements MigrationInterface {
  name = 'OutboxTraceparent1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "traceparent" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "traceparent"`);
  }
}
