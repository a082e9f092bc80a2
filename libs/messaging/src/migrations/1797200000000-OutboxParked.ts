import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An outbox row the broker can never take (larger than the server's max_payload) is parked instead of being retried
 * at the head of the outbox for ever, which held back every event written after it: `parked_at` takes it out of the
 * relay's claims, `parked_reason` says why (docs/operations.md).
 */
export class OutboxParked1797200000000 implements MigrationInterface {
  name = 'OutboxParked1797200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "parked_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "parked_reason" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "parked_reason"`);
    await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "parked_at"`);
  }
}
