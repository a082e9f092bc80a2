import { Clock } from '@cp/clock';
import { Plan, PLAN_REQUESTS_PER_MINUTE } from '@cp/contracts';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { GiveBack, RateLimitGrantRepository } from './rate-limit-grant.repository';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until capacity comes back (RateLimit-Reset; Retry-After when refused). */
  resetSeconds: number;
}

/** The plan limit is per 60-second sliding window (spec section 8: requests per minute). */
export const WINDOW_MS = 60_000;
/** How long a replica may spend a grant; the window checked at each grant is this much longer, so leases never add up beyond the limit. */
export const LEASE_MS = 1_000;
const SPAN_MS = WINDOW_MS + LEASE_MS;
const PRUNE_EVERY_MS = 60_000;
/** A busy account's next lease is asked for this far into its current one, so its requests never wait for PostgreSQL. */
const PREFETCH_AGE_MS = (LEASE_MS * 3) / 4;

interface Lease {
  grantId: string;
  grantedAtMs: number;
  /** Tokens granted. */
  size: number;
  remaining: number;
  /** The account's tokens in the window when this lease was granted (the lease included). */
  used: number;
  /** When the first of the account's other counted grants leaves the window, as PostgreSQL saw it at the grant (null: none). */
  othersFreeAtMs: number | null;
  /** Time of the last request this lease admitted (its grant time until one is): recorded when the lease is closed. */
  lastSpentMs: number;
}

/** What goes back when a replica stops using a lease: its unused tokens and when its last request was admitted. */
function closing(lease: Lease): GiveBack {
  return { grantId: lease.grantId, tokens: lease.remaining, spentByMs: lease.lastSpentMs };
}

/**
 * Sliding-window limit per account, exact across replicas, without a PostgreSQL write per request.
 * A replica takes a lease of up to one second of the plan's rate, sized by the account's recent traffic, from
 * the shared window in PostgreSQL (`RateLimitGrantRepository.take`) and spends it in memory for at most
 * LEASE_MS; unused tokens are given back. Any admitted request comes from a grant made at most LEASE_MS before it,
 * and every grant is checked against each earlier grant whose requests can share a 60-second window with its own:
 * one whose last request was admitted within WINDOW_MS (known once its replica closed the lease), or, while it may
 * still be in use, one granted within WINDOW_MS + LEASE_MS. So no 60-second window ever holds more than the limit,
 * and capacity comes back at most WINDOW_MS after the request that used it (RateLimit-Reset, Retry-After: 1–60).
 * A refusal is remembered until a second before the oldest grant leaves the window (the Retry-After given), so a
 * client hammering while limited costs no database work but in that last second, and one that waits Retry-After
 * finds capacity, whichever replica told it.
 * A busy account's next lease is taken in the background before the current one runs out or expires (issue 19:
 * about one request in ten waited for a grant's round trip, most of the read path's p99); the current lease's
 * unused tokens go back once the next one is in, so the overlap only ever counts more tokens, never fewer.
 */
@Injectable()
export class RateLimiterService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RateLimiterService.name);
  private readonly leases = new Map<string, Lease>();
  /**
   * Refusals remembered per account: `untilMs`, when capacity comes back as PostgreSQL said (the Retry-After);
   * `recheckMs`, until when that answer is sure to hold. Another replica closing a lease that may still have been in
   * use brings its grant's end up to LEASE_MS closer (61 s from its grant, then 60 s from its last request), and a
   * client told that earlier time there must not be refused here from memory (review: it was).
   */
  private readonly refusedUntil = new Map<string, { untilMs: number; recheckMs: number; used: number }>();
  private readonly pending = new Map<string, Promise<void>>();
  /** Lease size to ask for next, per account, from how much the last lease was used (1 for an account seen seldom). */
  private readonly nextSize = new Map<string, { size: number; atMs: number }>();
  /**
   * Unused tokens of leases replaced by a prefetched one, per account: given back with the account's next grant
   * request (in its round trip), or by the next sweep. Left for the sweep alone, a second of a fast client's
   * leftovers still counted when its next lease was asked for, and it was refused below its plan (outside review:
   * 266-296 of 300), then for a whole minute.
   */
  private returns = new Map<string, GiveBack[]>();
  private timer?: NodeJS.Timeout;
  private lastPruneMs = 0;

  constructor(
    private readonly grants: RateLimitGrantRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(false), LEASE_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweep(true);
  }

  async consume(accountId: string, plan: Plan): Promise<RateLimitDecision> {
    const limit = PLAN_REQUESTS_PER_MINUTE[plan];
    for (;;) {
      const now = this.clock.nowMs();
      const lease = this.leases.get(accountId);
      if (lease && now - lease.grantedAtMs < LEASE_MS && now >= lease.grantedAtMs && lease.remaining > 0) {
        lease.remaining -= 1;
        lease.lastSpentMs = now;
        if (!this.pending.has(accountId) && isBusy(lease, now)) {
          void this.startRefill(accountId, limit, now, true);
        }
        return {
          allowed: true,
          limit,
          remaining: Math.max(0, limit - lease.used + lease.remaining),
          // The request just admitted leaves the window in WINDOW_MS; an older one of the account may leave sooner.
          resetSeconds: secondsUntil(Math.min(lease.othersFreeAtMs ?? Number.POSITIVE_INFINITY, now + WINDOW_MS), now),
        };
      }
      const refused = this.refusedUntil.get(accountId);
      if (refused && now < refused.recheckMs) {
        return { allowed: false, limit, remaining: 0, resetSeconds: secondsUntil(refused.untilMs, now) };
      }
      // One grant request per account and replica at a time; concurrent requests wait for it and retry.
      await (this.pending.get(accountId) ?? this.startRefill(accountId, limit, now, false));
    }
  }

  private startRefill(accountId: string, limit: number, now: number, ahead: boolean): Promise<void> {
    const refill = this.refill(accountId, limit, now, ahead).finally(() => this.pending.delete(accountId));
    this.pending.set(accountId, refill);
    if (ahead) {
      // Nobody waits for a prefetch: its failure only means the next lease is asked for when this one runs out.
      void refill.catch((error: unknown) => this.logger.warn({ err: error }, 'rate-limit lease prefetch failed'));
    }
    return refill;
  }

  /**
   * `ahead`: the current lease stays in use until the new one is granted, and is closed then (with the account's
   * next grant request); a refused prefetch changes nothing. Otherwise the expired or used-up lease is replaced and
   * closed in the same round trip: its unused tokens go back and the time of its last request is recorded, used up
   * or not, so that the window (and a refusal's Retry-After) counts its requests 60 s from when they were admitted,
   * not 61 s from when it was granted.
   */
  private async refill(accountId: string, limit: number, now: number, ahead: boolean): Promise<void> {
    const previous = this.leases.get(accountId);
    if (!ahead) {
      this.leases.delete(accountId);
    }
    const backs = this.returns.get(accountId) ?? [];
    this.returns.delete(accountId);
    if (!ahead && previous) {
      backs.push(closing(previous));
    }
    const want = this.leaseSize(accountId, limit, previous, now, ahead);
    // The take closes them all in its round trip. Nothing is queued again when it fails: the closings may have been
    // applied before the error reached us, and giving tokens back twice would let the account past its plan, where
    // a lost closing only counts tokens that were not used (for 61 s at most).
    const result = await this.grants.take(accountId, limit, want, now, WINDOW_MS, LEASE_MS, backs);
    if (result.grantId !== null && result.granted > 0) {
      const replaced = this.leases.get(accountId);
      if (ahead && replaced) {
        this.queueReturns(accountId, [closing(replaced)]);
      }
      this.refusedUntil.delete(accountId);
      this.leases.set(accountId, {
        grantId: result.grantId,
        grantedAtMs: now,
        size: result.granted,
        remaining: result.granted,
        used: result.used,
        othersFreeAtMs: result.freeAtMs,
        lastSpentMs: now,
      });
    } else if (!ahead) {
      // Capacity returns when the first counted grant leaves the window: at most WINDOW_MS after its last request
      // once its lease is closed (this replica's were, just now), WINDOW_MS + LEASE_MS after its grant while another
      // replica may still be using it. At least a millisecond from now. Asked again from LEASE_MS before it: a closing
      // elsewhere may bring it that much closer, so a refusal costs PostgreSQL work only in that last second.
      const untilMs = Math.max(result.freeAtMs ?? now + LEASE_MS, now + 1);
      this.refusedUntil.set(accountId, { untilMs, recheckMs: Math.max(untilMs - LEASE_MS, now + 1), used: result.used });
    }
  }

  private queueReturns(accountId: string, items: GiveBack[]): void {
    if (items.length > 0) {
      this.returns.set(accountId, [...(this.returns.get(accountId) ?? []), ...items]);
    }
  }

  /**
   * At most a second of the plan's rate (Free 1, Pro 5, Enterprise 17); a lease used up within its second
   * doubles the next one, a partly used one sizes the next to what was used, a prefetched one to the rate of
   * the current one (a quarter more). A busy account costs about one grant a second per replica; a quiet one
   * asks for single tokens, so nothing is leased only to be given back.
   */
  private leaseSize(accountId: string, limit: number, previous: Lease | undefined, now: number, ahead: boolean): number {
    const largest = Math.max(1, Math.ceil((limit * LEASE_MS) / WINDOW_MS));
    const hint = this.nextSize.get(accountId);
    let size = hint && now - hint.atMs < 2 * LEASE_MS ? hint.size : 1;
    if (previous && ahead) {
      const spent = previous.size - previous.remaining;
      size = Math.ceil((spent * 1.25 * LEASE_MS) / Math.max(LEASE_MS / 10, now - previous.grantedAtMs));
    } else if (previous) {
      size = previous.remaining === 0 ? previous.size * 2 : previous.size - previous.remaining;
    }
    size = Math.min(largest, Math.max(1, size));
    this.nextSize.set(accountId, { size, atMs: now });
    return size;
  }

  /** Gives back what expired leases did not use, forgets old refusals, prunes old grants once a minute. */
  async sweep(all: boolean): Promise<void> {
    const now = this.clock.nowMs();
    const returns: GiveBack[] = [...this.returns.values()].flat();
    this.returns = new Map();
    for (const [accountId, lease] of this.leases) {
      if ((all || now - lease.grantedAtMs >= LEASE_MS || now < lease.grantedAtMs) && !this.pending.has(accountId)) {
        this.leases.delete(accountId);
        // A used-up lease is not written for: its grant leaves the window within WINDOW_MS + LEASE_MS of its
        // grant, already past, so no refusal waits more than WINDOW_MS for it.
        if (lease.remaining > 0) {
          returns.push(closing(lease));
        }
        this.nextSize.set(accountId, { size: Math.max(1, lease.size - lease.remaining), atMs: now });
      }
    }
    for (const [accountId, hint] of this.nextSize) {
      if (now - hint.atMs >= 2 * LEASE_MS || now < hint.atMs) {
        this.nextSize.delete(accountId);
      }
    }
    for (const [accountId, refused] of this.refusedUntil) {
      if (refused.recheckMs <= now) {
        this.refusedUntil.delete(accountId);
      }
    }
    try {
      await this.grants.giveBack(returns, LEASE_MS);
      if (now - this.lastPruneMs >= PRUNE_EVERY_MS) {
        this.lastPruneMs = now;
        await this.grants.pruneBefore(now - 10 * SPAN_MS);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'rate-limit housekeeping failed; unused tokens count until their grant leaves the window');
    }
  }
}

function secondsUntil(atMs: number, now: number): number {
  return Math.max(1, Math.ceil((atMs - now) / 1000));
}

/** A lease worth replacing before it ends: most of it spent, or three quarters of its time gone with half of it spent. */
function isBusy(lease: Lease, now: number): boolean {
  const spent = lease.size - lease.remaining;
  return lease.size >= 4 && (lease.remaining <= lease.size / 4 || (now - lease.grantedAtMs >= PREFETCH_AGE_MS && spent * 2 >= lease.size));
}
