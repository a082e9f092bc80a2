import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox relay claims rows with a lease instead of holding their row locks while it publishes: a broker that is
 * slow to acknowledge no longer keeps a transaction, its locks and a pool connection open (the relay's NATS publish
 * used to run inside the claiming transaction).
 */
export class OutboxClaimLease1795645465695 implements MigrationInterface {
  name = 'OutboxClaimLease1795645465695';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" ADD COLUMN IF NOT EXISTS "claimed_until" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbox_event" DROP COLUMN IF EXISTS "claimed_until"`);
  }
}
