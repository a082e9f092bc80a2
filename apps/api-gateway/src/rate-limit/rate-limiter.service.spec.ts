import { ManualClock } from '@cp/clock';
import { GiveBack, GrantResult, RateLimitGrantRepository } from './rate-limit-grant.repository';
import { RateLimiterService } from './rate-limiter.service';

/**
 * One account's window as `rate_limit_take` and `giveBack` keep it (a give-back takes tokens off its grant, never
 * below 0), with a take that can fail after its give-back was applied (a connection lost after the commit).
 */
class FakeGrants {
  private readonly rows = new Map<string, number>();
  private next = 1;
  failNextTakeAfterCommit = false;

  giveBack(returns: GiveBack[]): Promise<void> {
    for (const item of returns) this.apply(item);
    return Promise.resolve();
  }

  take(_accountId: string, limit: number, want: number, _nowMs: number, _windowMs: number, _leaseMs: number, backs: GiveBack[] = []): Promise<GrantResult> {
    for (const item of backs) this.apply(item);
    if (this.failNextTakeAfterCommit) {
      this.failNextTakeAfterCommit = false;
      return Promise.reject(new Error('connection lost'));
    }
    const used = this.counted();
    const granted = Math.min(want, limit - used);
    if (granted <= 0) return Promise.resolve({ grantId: null, granted: 0, used, freeAtMs: 0 });
    const grantId = String(this.next++);
    this.rows.set(grantId, granted);
    return Promise.resolve({ grantId, granted, used: used + granted, freeAtMs: 0 });
  }

  counted(): number {
    return [...this.rows.values()].reduce((sum, tokens) => sum + tokens, 0);
  }

  private apply(item: GiveBack): void {
    this.rows.set(item.grantId, Math.max(0, (this.rows.get(item.grantId) ?? 0) - item.tokens));
  }
}

describe('RateLimiterService give-backs', () => {
  it('a grant request that fails never gives the same tokens back twice: the window counts every admitted request', async () => {
    const clock = new ManualClock();
    const grants = new FakeGrants();
    const limiter = new RateLimiterService(grants as unknown as RateLimitGrantRepository, clock);
    let admitted = 0;
    const spend = async (count: number): Promise<void> => {
      for (let request = 0; request < count; request++) if ((await limiter.consume('a', 'enterprise')).allowed) admitted++;
    };
    // leases grow to their largest; prefetches replace leases that still hold tokens (queued to go back)
    for (let second = 0; second < 6; second++) {
      await spend(15);
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(1_000);
    }
    grants.failNextTakeAfterCommit = true;
    await expect(limiter.consume('a', 'enterprise')).rejects.toThrow('connection lost');
    await spend(20);
    await limiter.sweep(true);
    expect(admitted).toBeGreaterThan(90);
    expect(grants.counted()).toBeGreaterThanOrEqual(admitted);
  });
});
