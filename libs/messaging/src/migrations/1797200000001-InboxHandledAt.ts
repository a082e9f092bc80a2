import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index the inbox pruning reads (`InboxRecordsRepository.prune`: rows by `handled_at`). A plain build, inside
 * the migration's transaction: CREATE INDEX CONCURRENTLY waits for every transaction of the database with an older
 * snapshot, including another service's migrator waiting for the migrations' advisory lock that this one holds,
 * so services migrating at the same start would wait on each other for ever. The plain build holds the inserts
 * into this schema's inbox while it runs (once; an inbox never pruned before can be large): an operator who would
 * rather not can build the same index CONCURRENTLY beforehand, and IF NOT EXISTS keeps it (docs/operations.md).
 */
export class InboxHandledAt1797200000001 implements MigrationInterface {
  name = 'InboxHandledAt1797200000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "idx_inbox_record_handled_at" ON "inbox_record" ("handled_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "idx_inbox_record_handled_at"`);
  }
}
