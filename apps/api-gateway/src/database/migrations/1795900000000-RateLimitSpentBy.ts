import { MigrationInterface, QueryRunner } from "typeorm";

// Written by hand: a column TypeORM would generate, and the function it does not know.
//
// `spent_by`: the time of the last request a lease admitted, told by the replica when it stops using the lease
// (with its unused tokens, or with the next grant request). A grant counts in the window while a request it
// admitted can share a 60-second window with a new grant's requests: until `spent_by` + window once known,
// `granted_at` + lease + window (61 s) before. So capacity comes back, and `Retry-After` says so, at most
// 60 s after the request that used it, instead of 61 s after its grant.
//
// The function of SlidingRateLimit stays (another signature): replicas of the previous release keep calling it
// during a rolling update. It ignores `spent_by`, so it counts their grants and the new ones at least as long as
// this one does: the window stays exact, only more cautious while both run.
export class RateLimitSpentBy1795900000000 implements MigrationInterface {
    name = 'RateLimitSpentBy1795900000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            ALTER TABLE "rate_limit_grant" ADD "spent_by" TIMESTAMP(3) WITH TIME ZONE
        `);
        // Takes up to p_want tokens of the account's sliding window in one round trip, after closing the leases the
        // replica stopped using (their unused tokens back, their last request's time recorded). `free_at`: when the
        // first of the other counted grants leaves the window (the refusal's Retry-After). Windows are half-open
        // (a request at t and one at t + 60 s are in no common window), hence the strict comparison.
        await queryRunner.query(`
            CREATE FUNCTION "rate_limit_take"(
                p_account bigint, p_limit integer, p_want integer, p_now timestamptz, p_window_ms integer, p_lease_ms integer,
                p_return_ids bigint[], p_return_tokens integer[], p_return_spent_by timestamptz[])
            RETURNS TABLE (grant_id bigint, granted integer, used integer, free_at timestamptz)
            LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
            DECLARE
                v_window interval := make_interval(secs => p_window_ms / 1000.0);
                v_lease interval := make_interval(secs => p_lease_ms / 1000.0);
                v_used integer;
                v_free_at timestamptz;
                v_granted integer;
                v_id bigint;
            BEGIN
                PERFORM pg_advisory_xact_lock(19, hashtext(p_account::text));
                UPDATE rate_limit_grant g
                   SET tokens = greatest(0, g.tokens - r.tokens),
                       spent_by = least(coalesce(r.spent_by, g.granted_at + v_lease), g.granted_at + v_lease)
                  FROM unnest(p_return_ids, p_return_tokens, p_return_spent_by) AS r(id, tokens, spent_by)
                 WHERE g.id = r.id AND g.account_id = p_account;
                SELECT coalesce(sum(g.tokens), 0)::integer, min(coalesce(g.spent_by, g.granted_at + v_lease)) FILTER (WHERE g.tokens > 0) + v_window
                  INTO v_used, v_free_at
                  FROM rate_limit_grant g
                 WHERE g.account_id = p_account AND g.granted_at > p_now - v_window - v_lease
                   AND coalesce(g.spent_by, g.granted_at + v_lease) > p_now - v_window;
                v_granted := greatest(0, least(p_want, p_limit - v_used));
                IF v_granted > 0 THEN
                    INSERT INTO rate_limit_grant (account_id, granted_at, tokens) VALUES (p_account, p_now, v_granted)
                    RETURNING id INTO v_id;
                END IF;
                RETURN QUERY SELECT v_id, v_granted, v_used + v_granted, v_free_at;
            END
            $$
        `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
            DROP FUNCTION "rate_limit_take"(bigint, integer, integer, timestamptz, integer, integer, bigint[], integer[], timestamptz[])
        `);
        await queryRunner.query(`
            ALTER TABLE "rate_limit_grant" DROP COLUMN "spent_by"
        `);
    }

}
