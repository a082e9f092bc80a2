import { Clock } from '@cp/clock';
import { AccountsRepository, AuthenticatedKey, hashApiKey } from '@cp/gateway-data-access';
import { Injectable } from '@nestjs/common';

/** How long a key → account answer is reused; only a safety net, revocations arrive as events within a second. */
export const KEY_CACHE_TTL_MS = 30_000;
/** Bound on remembered keys (least recently stored are dropped first). */
export const KEY_CACHE_MAX_ENTRIES = 50_000;

interface Entry {
  key: AuthenticatedKey;
  expiresAtMs: number;
}

/**
 * Key → account of this replica, so a request does not cost a PostgreSQL lookup. Keyed by the key's SHA-256
 * (no plaintext kept); unknown keys are never cached, so random keys cannot fill it. `forgetKey` is called for
 * every `evt.gateway.api-key.revoked` and `clear` whenever the event stream may have had a gap.
 */
@Injectable()
export class AuthenticatedKeyCache {
  private readonly byDigest = new Map<string, Entry>();
  private readonly digestsByKeyId = new Map<string, string>();
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
    const generation = this.generation;
    const key = await this.accounts.authenticateDigest(digest);
    if (key && generation === this.generation) {
      this.store(digest, key, now + KEY_CACHE_TTL_MS);
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
  }

  get size(): number {
    return this.byDigest.size;
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
