// The sliding-window limit against real PostgreSQL, with two limiter instances standing for two gateway
// replicas (each its own connection pool) and one manual clock moved by the test instead of sleeping.
import { ManualClock } from '@cp/clock';
import { Plan, PLAN_REQUESTS_PER_MINUTE } from '@cp/contracts';
import { serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { GATEWAY_ENTITIES } from '../database/entities';
import { GATEWAY_MIGRATIONS } from '../database/migrations';
import { RateLimitGrantRepository } from './rate-limit-grant.repository';
import { RateLimitDecision, RateLimiterService, WINDOW_MS } from './rate-limiter.service';

/** Largest number of admitted requests inside any window of WINDOW_MS (times in ms, any order). */
function busiestWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while (sorted[end] - sorted[start] >= WINDOW_MS) {
      start += 1;
    }
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('sliding-window rate limit shared by two replicas (real PostgreSQL)', () => {
  const schema = uniqueName('it_ratelimit');
  const sources: DataSource[] = [];
  let clock: ManualClock;
  let replicas: RateLimiterService[];
  let nextAccount = 1;

  const open = async (): Promise<DataSource> => {
    const source = new DataSource({
      ...serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS, applicationName: 'it', poolSize: 4 }),
    });
    await source.initialize();
    sources.push(source);
    return source;
  };

  beforeAll(async () => {
    const first = await open();
    await first.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // The committed migrations, so the test runs the real rate_limit_take function.
    await first.runMigrations();
    const second = await open();
    clock = new ManualClock(new Date('2026-03-01T12:00:00.000Z'));
    replicas = [first, second].map((source) => new RateLimiterService(new RateLimitGrantRepository(source), clock));
  });

  afterAll(async () => {
    await sources[0].query(`DROP SCHEMA "${schema}" CASCADE`);
    await Promise.all(sources.map((source) => source.destroy()));
  });

  const account = (): string => String(nextAccount++);

  /** The first replica's grants, its round trips to PostgreSQL counted: `settled()` waits until none is under way. */
  const countedGrants = (): { grants: RateLimitGrantRepository; settled: () => Promise<void> } => {
    const grants = new RateLimitGrantRepository(sources[0]);
    const take = grants.take.bind(grants);
    let inFlight = 0;
    jest.spyOn(grants, 'take').mockImplementation(async (...args) => {
      inFlight += 1;
      try {
        return await take(...args);
      } finally {
        inFlight -= 1;
      }
    });
    const settled = async (): Promise<void> => {
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    return { grants, settled };
  };

  it('the committed migrations leave nothing for TypeORM to change (the spent_by column as the entity declares it)', async () => {
    const pending = await sources[0].driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
  const sweepAll = () => Promise.all(replicas.map((replica) => replica.sweep(false)));

  it('refuses the second burst at the minute boundary (no 2x burst) and gives Retry-After and RateLimit-* values', async () => {
    const id = account();
    clock.set(new Date('2026-03-01T12:00:59.000Z'));
    const first = await Promise.all(Array.from({ length: 60 }, (_, index) => replicas[index % 2].consume(id, 'free')));
    expect(first.every((decision) => decision.allowed)).toBe(true);
    expect(first.map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, index) => index));
    clock.set(new Date('2026-03-01T12:01:00.500Z'));
    const second = await Promise.all(Array.from({ length: 60 }, (_, index) => replicas[index % 2].consume(id, 'free')));
    expect(second.filter((decision) => decision.allowed)).toHaveLength(0);
    // The first burst was admitted at 12:00:59.000 and leaves the window at 12:01:59.000: 58.5 s, said as 59.
    expect(second[0]).toEqual({ allowed: false, limit: 60, remaining: 0, resetSeconds: 59 });
    clock.set(new Date('2026-03-01T12:01:58.999Z'));
    expect((await replicas[0].consume(id, 'free')).allowed).toBe(false);
    clock.set(new Date('2026-03-01T12:01:59.000Z'));
    expect((await replicas[0].consume(id, 'free')).allowed).toBe(true);
  });

  it.each<[Plan, number]>([
    ['free', 11],
    ['pro', 12],
    ['enterprise', 13],
  ])('%s: over any 60-second span at most the plan limit, with bursts on both replicas (seed %i)', async (plan, seed) => {
    const id = account();
    const next = random(seed);
    const limit = PLAN_REQUESTS_PER_MINUTE[plan];
    const admitted: number[] = [];
    let refused = 0;
    // Five virtual minutes of bursts of up to limit/4 requests, spread over both replicas, at random gaps.
    for (let step = 0; step < 60; step += 1) {
      clock.advance(Math.floor(next() * 10_000));
      const burst = 1 + Math.floor(next() * (limit / 4));
      const decisions = await Promise.all(Array.from({ length: burst }, (_, index) => replicas[(index + step) % 2].consume(id, plan)));
      for (const decision of decisions) {
        if (decision.allowed) {
          admitted.push(clock.nowMs());
        } else {
          refused += 1;
        }
      }
      if (step % 3 === 0) {
        await sweepAll();
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(busiestWindow(admitted)).toBeLessThanOrEqual(limit);
    // Not needlessly strict either: the busiest window gets close to the limit.
    expect(busiestWindow(admitted)).toBeGreaterThan(limit * 0.9);
  });

  it('a client that waits Retry-After never gets two 429s in a row, whichever replica it reaches', async () => {
    const id = account();
    const next = random(7);
    const admitted: number[] = [];
    let previous: RateLimitDecision | undefined;
    let refusals = 0;
    const resets: number[] = [];
    for (let request = 0; request < 400; request += 1) {
      const decision = await replicas[Math.floor(next() * 2)].consume(id, 'free');
      resets.push(decision.resetSeconds);
      if (!decision.allowed) {
        refusals += 1;
        expect(previous?.allowed).toBe(true);
        clock.advance(decision.resetSeconds * 1000);
      } else {
        admitted.push(clock.nowMs());
        clock.advance(Math.floor(next() * 400));
      }
      previous = decision;
      if (request % 25 === 0) {
        await sweepAll();
      }
    }
    expect(refusals).toBeGreaterThan(3);
    expect(busiestWindow(admitted)).toBeLessThanOrEqual(60);
    // RateLimit-Reset and Retry-After stay within the 60-second window (client review: they could read 61).
    expect([Math.min(...resets), Math.max(...resets)]).toEqual([1, 60]);
  });

  // Client review: RateLimit-Reset read 61 (the window was checked over 61 s from each grant), on the first request
  // of every quiet account and after any burst; a client reading a 60-second window's headers expects 0–60.
  it('the first request of a quiet account reads RateLimit-Reset 60, the next ones the time its request has left', async () => {
    const id = account();
    const first = await replicas[0].consume(id, 'free');
    clock.advance(5_000);
    const second = await replicas[0].consume(id, 'free');
    clock.advance(20_000);
    const third = await replicas[1].consume(id, 'free');
    expect([first, second.resetSeconds, third.resetSeconds]).toEqual([{ allowed: true, limit: 60, remaining: 59, resetSeconds: 60 }, 55, 35]);
  });

  it.each<[Plan]>([['free'], ['pro']])('%s: the whole plan at once on one replica, then Retry-After of at most 60 that holds: refused a moment before, admitted at it', async (plan) => {
    const { grants, settled } = countedGrants();
    const replica = new RateLimiterService(grants, clock);
    const id = account();
    const limit = PLAN_REQUESTS_PER_MINUTE[plan];
    const resets: number[] = [];
    let refusal: RateLimitDecision | undefined;
    for (let request = 0; request <= limit && refusal === undefined; request += 1) {
      const decision = await replica.consume(id, plan);
      resets.push(decision.resetSeconds);
      if (!decision.allowed) {
        refusal = decision;
      }
      // A prefetch goes on in real time while the clock stands still: let it land.
      await settled();
    }
    expect([resets.length, Math.max(...resets), refusal?.resetSeconds]).toEqual([limit + 1, 60, 60]);
    clock.advance(59_999);
    expect((await replica.consume(id, plan)).allowed).toBe(false);
    clock.advance(1);
    expect((await replica.consume(id, plan)).allowed).toBe(true);
  });

  // Review: closing a lease can bring the first counted grant's end a second closer (61 s from its grant while it may be
  // in use, 60 s from its last request once closed), so a refusal another replica remembered from before the closing
  // outlived the Retry-After this one then gave.
  it('a client that waits the Retry-After of one replica is admitted by the other, which refused it earlier', async () => {
    const [a, b] = replicas;
    const id = account();
    // Replica a admits one request and keeps its used-up lease open; two seconds later b admits the rest of the plan.
    expect((await a.consume(id, 'free')).allowed).toBe(true);
    clock.advance(2_000);
    for (let request = 0; request < 59; request += 1) {
      expect((await b.consume(id, 'free')).allowed).toBe(true);
    }
    clock.advance(100);
    // b refuses while a's lease may still be in use: its grant counts 61 s.
    expect((await b.consume(id, 'free')).allowed).toBe(false);
    clock.advance(100);
    // a closes its lease (its request was admitted 2.2 s ago) and refuses: its request leaves the window in 57.8 s.
    const refusal = await a.consume(id, 'free');
    expect([refusal.allowed, refusal.resetSeconds]).toEqual([false, 58]);
    clock.advance(refusal.resetSeconds * 1000);
    expect((await b.consume(id, 'free')).allowed).toBe(true);
  });

  // A rolling update runs replicas of the previous release beside these: they call SlidingRateLimit's function (which
  // ignores spent_by and counts every grant 61 s from its grant) on the same table, each request a grant of one token.
  it.each<[Plan, number]>([
    ['free', 21],
    ['pro', 22],
  ])('%s: replicas of the previous release and of this one together admit at most the plan in any 60 s (seed %i)', async (plan, seed) => {
    const id = account();
    const next = random(seed);
    const limit = PLAN_REQUESTS_PER_MINUTE[plan];
    const previousRelease = async (): Promise<boolean> => {
      const [row] = await sources[1].query<Array<{ granted: number }>>('SELECT granted FROM rate_limit_take($1, $2, 1, $3, $4, NULL, 0)', [
        id,
        limit,
        new Date(clock.nowMs()),
        WINDOW_MS + 1_000,
      ]);
      return row.granted > 0;
    };
    const admitted: number[] = [];
    for (let step = 0; step < 80; step += 1) {
      clock.advance(Math.floor(next() * 8_000));
      const burst = 1 + Math.floor(next() * (limit / 3));
      const outcomes = await Promise.all(
        Array.from({ length: burst }, (_, index) => (index % 3 === 2 ? previousRelease() : replicas[index % 2].consume(id, plan).then((decision) => decision.allowed))),
      );
      outcomes.filter(Boolean).forEach(() => admitted.push(clock.nowMs()));
      if (step % 4 === 0) {
        await sweepAll();
      }
    }
    expect(busiestWindow(admitted)).toBeLessThanOrEqual(limit);
    expect(busiestWindow(admitted)).toBeGreaterThan(limit * 0.8);
  });

  it('a quiet account takes single tokens (nothing to give back); a busy one about one grant a second', async () => {
    const grants = new RateLimitGrantRepository(sources[0]);
    const take = jest.spyOn(grants, 'take');
    const giveBack = jest.spyOn(grants, 'giveBack');
    const replica = new RateLimiterService(grants, clock);
    const quiet = account();
    for (let request = 0; request < 5; request += 1) {
      expect((await replica.consume(quiet, 'enterprise')).allowed).toBe(true);
      clock.advance(5_000);
      await replica.sweep(false);
    }
    expect(take.mock.calls.map((call) => call[2])).toEqual([1, 1, 1, 1, 1]);
    expect(giveBack.mock.calls.flatMap((call) => call[0])).toEqual([]);
    take.mockClear();
    // 15 requests a second for 10 seconds: leases grow to 17 and the grants stay near one a second.
    const busy = account();
    for (let second = 0; second < 10; second += 1) {
      for (let request = 0; request < 15; request += 1) {
        expect((await replica.consume(busy, 'enterprise')).allowed).toBe(true);
        clock.advance(66);
      }
      await replica.sweep(false);
    }
    expect(take.mock.calls.length).toBeLessThanOrEqual(20);
  });

  it('a busy account gets its next lease ahead of time: its requests never wait for PostgreSQL', async () => {
    const grants = new RateLimitGrantRepository(sources[0]);
    const take = grants.take.bind(grants);
    let held: Array<() => void> = [];
    let holding = false;
    let inFlight = 0;
    jest.spyOn(grants, 'take').mockImplementation(async (...args) => {
      inFlight += 1;
      try {
        if (holding) {
          await new Promise<void>((release) => held.push(release));
        }
        return await take(...args);
      } finally {
        inFlight -= 1;
      }
    });
    const replica = new RateLimiterService(grants, clock);
    const busy = account();
    /** The decision, or 'waited' when the request had to wait for a grant (it did not settle within its own turn). */
    const request = () =>
      Promise.race([replica.consume(busy, 'enterprise'), new Promise<'waited'>((resolve) => setImmediate(() => resolve('waited')))]);
    // Warm-up: 15 requests a second; leases grow to a second's worth of the Enterprise rate.
    for (let index = 0; index < 45; index += 1) {
      await replica.consume(busy, 'enterprise');
      clock.advance(66);
    }
    await replica.sweep(false);
    // A prefetch of the warm-up may still be on its way to PostgreSQL (the clock is manual, real time is not): let it land.
    while (inFlight > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // From now on every grant is held: requests go on being answered from the current lease while the next one is asked for.
    holding = true;
    const outcomes: Array<RateLimitDecision | 'waited'> = [];
    for (let index = 0; index < 15 && held.length === 0; index += 1) {
      outcomes.push(await request());
      clock.advance(66);
    }
    expect(held.length).toBe(1);
    for (let index = 0; index < 3; index += 1) {
      outcomes.push(await request());
      clock.advance(20);
    }
    expect(outcomes.every((outcome) => outcome !== 'waited' && outcome.allowed)).toBe(true);
    holding = false;
    held.forEach((release) => release());
    held = [];
    await replica.sweep(false);
    expect((await replica.consume(busy, 'enterprise')).allowed).toBe(true);
  });

  it('tokens a replica leased but did not use go back to the shared window', async () => {
    const id = account();
    // Replica 0 leases a second's worth of the Enterprise rate (17) and uses one.
    expect((await replicas[0].consume(id, 'enterprise')).allowed).toBe(true);
    clock.advance(1_000);
    await sweepAll();
    // Replica 1 can now admit the remaining 999 within the same minute.
    let allowed = 0;
    for (let request = 0; request < 1000; request += 1) {
      if ((await replicas[1].consume(id, 'enterprise')).allowed) {
        allowed += 1;
      }
      if (request % 17 === 16) {
        clock.advance(30);
      }
    }
    expect(allowed).toBe(999);
  });

  it('a fast client of one replica is admitted its whole plan before the first refusal (leases replaced ahead give their rest back first)', async () => {
    const { grants, settled } = countedGrants();
    const replica = new RateLimiterService(grants, clock);
    const id = account();
    // ~145 requests a second, the replica's sweep once a second, as in the outside review
    let admitted = 0;
    let sinceSweep = 0;
    for (let request = 0; request < 400; request += 1) {
      const decision = await replica.consume(id, 'pro');
      if (!decision.allowed) break;
      admitted += 1;
      // the prefetch of a busy lease goes on in real time while the clock stands still: let it land
      await settled();
      clock.advance(7);
      sinceSweep += 7;
      if (sinceSweep >= 1_000) {
        sinceSweep = 0;
        await replica.sweep(false);
      }
    }
    expect(admitted).toBe(PLAN_REQUESTS_PER_MINUTE.pro);
  });
});
