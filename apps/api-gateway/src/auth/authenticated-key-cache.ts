import { Clock } from '@cp/clock';
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

interface Entry {
  key: AuthenticatedKey;
  expiresAtMs: number;
}

/**
 * Key → account of this replica, so a request does not cost a PostgreSQL lookup. Keyed by the key's SHA-256
 * (no plaintext kept). Unknown keys are kept apart, for `UNKNOWN_KEY_TTL_MS` only and in a bounded map of their
 * own, so a client repeating one unknown or revoked key costs one query per few seconds, and random keys cannot
 * push known keys out. `forgetKey` is called for every `evt.gateway.api-key.revoked` and `clear` whenever the
 * event stream may have had a gap.
 */
@Injectable()
export class AuthenticatedKeyCache {
  private readonly byDigest = new Map<string, Entry>();
  private readonly digestsByKeyId = new Map<string, string>();
  /** Digest → until when it is answered "unknown" without a query. */
  private readonly unknownUntil = new Map<string, number>();
  /** Bumped by every invalidation, so a lookup that started before it does not store a stale answer. */
  private generation = 0;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
  ) {}

  async authenticate(candidate: string): Promise<AuthenticatedKey | null> {
    const digest = hashApiKey(candidate);
    const now = this.clock.nowMs();
    const cached = this.byDigest.get(digest);
    if (cached && cached.expiresAtMs > now) {
      return cached.key;
    }
    const unknownUntil = this.unknownUntil.get(digest);
    if (unknownUntil !== undefined) {
      if (unknownUntil > now) {
        return null;
      }
      this.unknownUntil.delete(digest);
    }
    const generation = this.generation;
    const key = await this.accounts.authenticateDigest(digest);
    if (generation === this.generation) {
      if (key) {
        this.store(digest, key, now + KEY_CACHE_TTL_MS);
      } else {
        this.storeUnknown(digest, now + UNKNOWN_KEY_TTL_MS);
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
    this.unknownUntil.clear();
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** Unknown keys remembered (expired ones included until they are asked again or pushed out). */
  get unknownSize(): number {
    return this.unknownUntil.size;
  }

  private storeUnknown(digest: string, untilMs: number): void {
    this.unknownUntil.delete(digest);
    this.unknownUntil.set(digest, untilMs);
    if (this.unknownUntil.size > UNKNOWN_KEY_MAX_ENTRIES) {
      const [oldest] = this.unknownUntil.keys();
      this.unknownUntil.delete(oldest);
    }
  }

  private store(digest: string, key: AuthenticatedKey, expiresAtMs: number): void {
    this.byDigest.delete(digest);
    this.byDigest.set(digest, { key, expiresAtMs });
    this.digestsByKeyId.set(key.keyId, digest);
    if (this.byDigest.size > KEY_CACHE_MAX_ENTRIES) {
      const [oldestDigest, oldest] = this.byDigest.entries().next().value as [string, Entry];
      this.byDigest.delete(oldestDigest);
      this.digestsByKeyId.delete(oldest.key.keyId);
    }
  }
}
