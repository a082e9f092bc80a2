import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface GrantResult {
  /** Null when nothing was granted. */
  grantId: string | null;
  granted: number;
  /** Tokens of the account's grants inside the span, this one included. */
  used: number;
  /** Time of the oldest grant still holding tokens inside the span (ms), null when there is none. */
  oldestMs: number | null;
}

export interface GiveBack {
  grantId: string;
  tokens: number;
}

/**
 * The rate-limit window in PostgreSQL: `rate_limit_take` (a function created by the SlidingRateLimit migration)
 * takes up to `want` tokens for an account in one round trip, under a per-account transaction lock so that replicas
 * never grant the same capacity twice.
 */
@Injectable()
export class RateLimitGrantRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** `giveBack`: what the account's previous, expired lease of this replica did not use. */
  async take(accountId: string, limit: number, want: number, nowMs: number, spanMs: number, giveBack?: GiveBack): Promise<GrantResult> {
    const rows = await this.dataSource.query<Array<{ grant_id: string | null; granted: number; used: number; oldest_ms: string | null }>>(
      `SELECT grant_id::text, granted, used, (EXTRACT(EPOCH FROM oldest) * 1000)::bigint::text AS oldest_ms
         FROM rate_limit_take($1, $2, $3, $4, $5, $6, $7)`,
      [accountId, limit, want, new Date(nowMs), spanMs, giveBack?.grantId ?? null, giveBack?.tokens ?? 0],
    );
    const row = rows[0];
    return { grantId: row.grant_id, granted: row.granted, used: row.used, oldestMs: row.oldest_ms === null ? null : Number(row.oldest_ms) };
  }

  /** Unused tokens of expired leases go back to their grants (one statement for the batch). */
  async giveBack(returns: GiveBack[]): Promise<void> {
    if (returns.length === 0) {
      return;
    }
    await this.dataSource.query(
      `UPDATE rate_limit_grant g SET tokens = greatest(0, g.tokens - r.tokens)
         FROM unnest($1::bigint[], $2::int[]) AS r(id, tokens) WHERE g.id = r.id`,
      [returns.map((item) => item.grantId), returns.map((item) => item.tokens)],
    );
  }

  async pruneBefore(beforeMs: number): Promise<void> {
    await this.dataSource.query('DELETE FROM rate_limit_grant WHERE granted_at < $1', [new Date(beforeMs)]);
  }
}
