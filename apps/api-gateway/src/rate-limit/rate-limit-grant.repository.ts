import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface GrantResult {
  /** Null when nothing was granted. */
  grantId: string | null;
  granted: number;
  /** Tokens of the account's grants counted in the window, this one included. */
  used: number;
  /** When the first of the account's other counted grants leaves the window (ms), null when there is none. */
  freeAtMs: number | null;
}

/** A lease the replica stopped using: its unused tokens go back, and the time of the last request it admitted is recorded. */
export interface GiveBack {
  grantId: string;
  tokens: number;
  spentByMs: number;
}

const returnArrays = (returns: GiveBack[]): [string[], number[], Date[]] => [
  returns.map((item) => item.grantId),
  returns.map((item) => item.tokens),
  returns.map((item) => new Date(item.spentByMs)),
];

/**
 * The rate-limit window in PostgreSQL: `rate_limit_take` (a function created by the RateLimitSpentBy migration)
 * takes up to `want` tokens for an account in one round trip, under a per-account transaction lock so that replicas
 * never grant the same capacity twice.
 */
@Injectable()
export class RateLimitGrantRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** `giveBack`: the account's leases this replica stopped using, closed in the same round trip. */
  async take(accountId: string, limit: number, want: number, nowMs: number, windowMs: number, leaseMs: number, giveBack: GiveBack[] = []): Promise<GrantResult> {
    const rows = await this.dataSource.query<Array<{ grant_id: string | null; granted: number; used: number; free_at_ms: string | null }>>(
      `SELECT grant_id::text, granted, used, (EXTRACT(EPOCH FROM free_at) * 1000)::bigint::text AS free_at_ms
         FROM rate_limit_take($1, $2, $3, $4, $5, $6, $7::bigint[], $8::int[], $9::timestamptz[])`,
      [accountId, limit, want, new Date(nowMs), windowMs, leaseMs, ...returnArrays(giveBack)],
    );
    const row = rows[0];
    return { grantId: row.grant_id, granted: row.granted, used: row.used, freeAtMs: row.free_at_ms === null ? null : Number(row.free_at_ms) };
  }

  /** Leases a replica stopped using, closed in one statement: unused tokens back, the last request's time recorded. */
  async giveBack(returns: GiveBack[], leaseMs: number): Promise<void> {
    if (returns.length === 0) {
      return;
    }
    await this.dataSource.query(
      `UPDATE rate_limit_grant g
          SET tokens = greatest(0, g.tokens - r.tokens),
              spent_by = least(r.spent_by, g.granted_at + make_interval(secs => $4 / 1000.0))
         FROM unnest($1::bigint[], $2::int[], $3::timestamptz[]) AS r(id, tokens, spent_by) WHERE g.id = r.id`,
      [...returnArrays(returns), leaseMs],
    );
  }

  async pruneBefore(beforeMs: number): Promise<void> {
    await this.dataSource.query('DELETE FROM rate_limit_grant WHERE granted_at < $1', [new Date(beforeMs)]);
  }
}
