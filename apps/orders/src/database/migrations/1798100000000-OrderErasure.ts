import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The orders an operator erased (`OrderErasureEntity`). Filled from the erasure events the outbox still keeps (a day),
 * which is where a repeated `admin order erase` looked for them before this table.
 */
export class OrderErasure1798100000000 implements MigrationInterface {
  name = 'OrderErasure1798100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "order_erasure" (
        "order_id" bigint NOT NULL,
        "account_id" bigint NOT NULL,
        "erasure_id" uuid NOT NULL,
        "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_order_erasure" PRIMARY KEY ("order_id")
      )
    `);
    await queryRunner.query(`CREATE INDEX "idx_order_erasure_account" ON "order_erasure" ("account_id")`);
    await queryRunner.query(`
      INSERT INTO "order_erasure" ("order_id", "account_id", "erasure_id", "requested_at")
      SELECT DISTINCT ON ((envelope->'data'->>'orderId')::bigint)
             (envelope->'data'->>'orderId')::bigint, (envelope->'data'->>'accountId')::bigint,
             (envelope->'data'->>'erasureId')::uuid, (envelope->>'occurredAt')::timestamptz
        FROM "outbox_event"
       WHERE subject = 'evt.orders.order.erasure-requested'
       ORDER BY (envelope->'data'->>'orderId')::bigint, seq
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "order_erasure"`);
  }
}
