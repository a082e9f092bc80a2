import { Clock, ExpiringMap } from '@cp/clock';
import { AccountsRepository, AuthenticatedKey, hashApiKey } from '@cp/gateway-data-access';
import { Injectable } from '@nestjs/common';

/** How long a key → account answer is reused; only a safety net, revocations arrive as events within a second. */
export const KEY_CACHE_TTL_MS = 30_000;
/** Bound on remembered keys (least recently stored are dropped first). */
export const KEY_CACHE_MAX_ENTRIES = 50_000;
/**
 * How long "no such key" is remembered. Short, and harmless to a key issued meanwhile: keys are 32 random bytes
 * the gateway makes at issue time, so nobody can present one (and leave a miss behind) before it exists.
 */
export const UNKNOWN_KEY_TTL_MS = 5_000;
/** Bound on remembered misses: random keys fill it and push out the oldest, never grow it. */
export const UNKNOWN_KEY_MAX_ENTRIES = 10_000;

/**
 * Key → account of this replica, so a request does not cost a PostgreSQL lookup. Keyed by the key's SHA-256
 * (no plaintext kept). Unknown keys are kept apart, for `UNKNOWN_KEY_TTL_MS` only and in a bounded map of their
 * own, so a client repeating one unknown or revoked key costs one query per few seconds, and random keys cannot
 * push known keys out. `forgetKey` is called for every `evt.gateway.api-key.revoked` and `clear` whenever the
 * event stream may have had a gap.
 */
@Injectable()
export class AuthenticatedKeyCache {
  private readonly byDigest: ExpiringMap<string, AuthenticatedKey>;
  private readonly digestsByKeyId = new Map<string, string>();
  /** Digests answered "unknown" without a query until their entry ends. */
  private readonly unknown: ExpiringMap<string, true>;
  /** Bumped by every invalidation, so a lookup that started before it does not store a stale answer. */
  private generation = 0;

  constructor(
    private readonly accounts: AccountsRepository,
    clock: Clock,
  ) {
    this.byDigest = new ExpiringMap(clock, KEY_CACHE_MAX_ENTRIES, (_digest, key) => this.digestsByKeyId.delete(key.keyId));
    this.unknown = new ExpiringMap(clock, UNKNOWN_KEY_MAX_ENTRIES);
  }

  async authenticate(candidate: string): Promise<AuthenticatedKey | null> {
    const digest = hashApiKey(candidate);
    const cached = this.byDigest.get(digest);
    if (cached !== undefined) {
      return cached;
    }
    if (this.unknown.get(digest) !== undefined) {
      return null;
    }
    const generation = this.generation;
    const key = await this.accounts.authenticateDigest(digest);
    if (generation === this.generation) {
      if (key) {
        this.byDigest.set(digest, key, KEY_CACHE_TTL_MS);
        this.digestsByKeyId.set(key.keyId, digest);
      } else {
        this.unknown.set(digest, true, UNKNOWN_KEY_TTL_MS);
      }
    }
    return key;
  }

  forgetKey(keyId: string): void {
    this.generation += 1;
    const digest = this.digestsByKeyId.get(keyId);
    if (digest !== undefined) {
      this.byDigest.delete(digest);
      this.digestsByKeyId.delete(keyId);
    }
  }

  clear(): void {
    this.generation += 1;
    this.byDigest.clear();
    this.digestsByKeyId.clear();
    this.unknown.clear();
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** Unknown keys remembered (ended ones included until they are asked again or pushed out). */
  get unknownSize(): number {
    return this.unknown.size;
  }
}
