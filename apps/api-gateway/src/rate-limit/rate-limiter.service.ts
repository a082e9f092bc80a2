import { Clock } from '@cp/clock';
import { Plan, PLAN_REQUESTS_PER_MINUTE } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { RateLimitWindowEntity } from './rate-limit-window.entity';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows counted in PostgreSQL with one atomic upsert per request, so every gateway
 * replica shares the same count (no process memory involved).
 */
@Injectable()
export class RateLimiterService {
  private lastPrune = 0;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async consume(accountId: string, plan: Plan): Promise<RateLimitDecision> {
    const now = this.clock.nowMs();
    const windowStart = new Date(Math.floor(now / WINDOW_MS) * WINDOW_MS);
    const limit = PLAN_REQUESTS_PER_MINUTE[plan];
    const rows = await this.dataSource.query<Array<{ request_count: number }>>(
      `INSERT INTO rate_limit_window (account_id, window_start, request_count) VALUES ($1, $2, 1)
       ON CONFLICT (account_id, window_start) DO UPDATE SET request_count = rate_limit_window.request_count + 1
       RETURNING request_count`,
      [accountId, windowStart],
    );
    const count = rows[0].request_count;
    this.pruneOccasionally(now);
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000)),
    };
  }

  private pruneOccasionally(now: number): void {
    if (now - this.lastPrune < WINDOW_MS) {
      return;
    }
    this.lastPrune = now;
    void this.dataSource
      .getRepository(RateLimitWindowEntity)
      .delete({ windowStart: LessThan(new Date(now - 10 * WINDOW_MS)) })
      .catch(() => undefined);
  }
}
