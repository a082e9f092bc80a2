import { MigrationInterface, QueryRunner } from 'typeorm';

/** Attempts of consumers at messages about an order, for the order's timeline (issue 33). */
export class JobAttempts1796100000000 implements MigrationInterface {
  name = 'JobAttempts1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE IF NOT EXISTS "job_attempt" ("id" BIGSERIAL NOT NULL, "consumer" text NOT NULL, "subject" text NOT NULL,
      "event_id" text NOT NULL, "order_id" text NOT NULL, "delivery" integer NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "duration_ms" integer NOT NULL, "outcome" text NOT NULL, "reason" text, CONSTRAINT "PK_job_attempt" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_job_attempt_order" ON "job_attempt" ("order_id", "started_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "job_attempt"`);
  }
}
