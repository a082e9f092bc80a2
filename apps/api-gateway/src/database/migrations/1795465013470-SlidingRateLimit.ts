import { MigrationInterface, QueryRunner } from "typeorm";

// Generated for the table and index; the function and the drop of the fixed-window table are written by hand
// (TypeORM neither drops tables without an entity nor knows functions).

export class SlidingRateLimit1795465013470 implements MigrationInterface {
    name = 'SlidingRateLimit1795465013470'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            CREATE TABLE "rate_limit_grant" (
                "id" BIGSERIAL NOT NULL,
                "account_id" bigint NOT NULL,
                "granted_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
                "tokens" integer NOT NULL,
                CONSTRAINT "PK_437c2c5367534ae94d04245ace0" PRIMARY KEY ("id")
            )
        `);
        await queryRunner.query(`
            CREATE INDEX "IDX_6c03e71a0773e2ea64b644ed9c" ON "rate_limit_grant" ("account_id", "granted_at")
        `);
        await queryRunner.query(`
            DROP TABLE "rate_limit_window"
        `);
        // Takes up to p_want tokens of the account's sliding window in one round trip, after giving back what an
        // expired lease did not use. The advisory lock serialises grants of one account across replicas; being
        // VOLATILE, each statement below sees what other grants committed before the lock was obtained.
        await queryRunner.query(`
            CREATE FUNCTION "rate_limit_take"(
                p_account bigint, p_limit integer, p_want integer, p_now timestamptz, p_span_ms integer,
                p_return_id bigint, p_return_tokens integer)
            RETURNS TABLE (grant_id bigint, granted integer, used integer, oldest timestamptz)
            LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
            DECLARE
                v_used integer;
                v_oldest timestamptz;
                v_granted integer;
                v_id bigint;
            BEGIN
                PERFORM pg_advisory_xact_lock(19, hashtext(p_account::text));
                IF p_return_id IS NOT NULL AND p_return_tokens > 0 THEN
                    UPDATE rate_limit_grant g SET tokens = greatest(0, g.tokens - p_return_tokens) WHERE g.id = p_return_id;
                END IF;
                SELECT coalesce(sum(g.tokens), 0)::integer, min(g.granted_at) FILTER (WHERE g.tokens > 0)
                  INTO v_used, v_oldest
                  FROM rate_limit_grant g
                 WHERE g.account_id = p_account AND g.granted_at > p_now - make_interval(secs => p_span_ms / 1000.0);
                v_granted := greatest(0, least(p_want, p_limit - v_used));
                IF v_granted > 0 THEN
                    INSERT INTO rate_limit_grant (account_id, granted_at, tokens) VALUES (p_account, p_now, v_granted)
                    RETURNING id INTO v_id;
                    v_oldest := coalesce(v_oldest, p_now);
                END IF;
                RETURN QUERY SELECT v_id, v_granted, v_used + v_granted, v_oldest;
            END
            $$
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP FUNCTION "rate_limit_take"(bigint, integer, integer, timestamptz, integer, bigint, integer)
        `);
        await queryRunner.query(`
            CREATE TABLE "rate_limit_window" (
                "account_id" bigint NOT NULL,
                "window_start" TIMESTAMP WITH TIME ZONE NOT NULL,
                "request_count" integer NOT NULL,
                CONSTRAINT "PK_caea12ab2573c8c3bfbc382e2b2" PRIMARY KEY ("account_id", "window_start")
            )
        `);
        await queryRunner.query(`
            DROP INDEX "gateway"."IDX_6c03e71a0773e2ea64b644ed9c"
        `);
        await queryRunner.query(`
            DROP TABLE "rate_limit_grant"
        `);
    }

}
