import { ManualClock } from '@cp/clock';
import { AccountsRepository, AuthenticatedKey, hashApiKey } from '@cp/gateway-data-access';
import { AuthenticatedKeyCache, KEY_CACHE_TTL_MS } from './authenticated-key-cache';

const KEY = 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const known: AuthenticatedKey = { keyId: '3', accountId: '7', mode: 'live', plan: 'pro' };

/** A fake of the repository's digest lookup that counts calls and can hold an answer back. */
function fakeAccounts(answer: () => AuthenticatedKey | null) {
  const lookups: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  const accounts = {
    authenticateDigest: async (digest: string) => {
      lookups.push(digest);
      await gate;
      return answer();
    },
  } as unknown as AccountsRepository;
  return {
    accounts,
    lookups,
    hold: (until: Promise<void>): void => {
      gate = until;
    },
  };
}

describe('AuthenticatedKeyCache', () => {
  it('asks the database once per key within the TTL, by digest, and again after it', async () => {
    const clock = new ManualClock();
    const fake = fakeAccounts(() => known);
    const cache = new AuthenticatedKeyCache(fake.accounts, clock);
    expect(await cache.authenticate(KEY)).toEqual(known);
    expect(await cache.authenticate(KEY)).toEqual(known);
    expect(fake.lookups).toEqual([hashApiKey(KEY)]);
    clock.advance(KEY_CACHE_TTL_MS);
    await cache.authenticate(KEY);
    expect(fake.lookups).toHaveLength(2);
  });

  it('never caches unknown keys', async () => {
    const fake = fakeAccounts(() => null);
    const cache = new AuthenticatedKeyCache(fake.accounts, new ManualClock());
    expect(await cache.authenticate(KEY)).toBeNull();
    expect(await cache.authenticate(KEY)).toBeNull();
    expect(fake.lookups).toHaveLength(2);
    expect(cache.size).toBe(0);
  });

  it('a revocation drops the key at once', async () => {
    let revoked = false;
    const fake = fakeAccounts(() => (revoked ? null : known));
    const cache = new AuthenticatedKeyCache(fake.accounts, new ManualClock());
    expect(await cache.authenticate(KEY)).toEqual(known);
    revoked = true;
    cache.forgetKey('3');
    expect(await cache.authenticate(KEY)).toBeNull();
  });

  it('a lookup that started before a revocation does not put the key back', async () => {
    let release: () => void = () => undefined;
    const fake = fakeAccounts(() => known);
    fake.hold(new Promise<void>((resolve) => (release = resolve)));
    const cache = new AuthenticatedKeyCache(fake.accounts, new ManualClock());
    const inFlight = cache.authenticate(KEY);
    cache.forgetKey('3');
    release();
    await inFlight;
    expect(cache.size).toBe(0);
  });
});
