import { ManualClock } from '@cp/clock';
import { AccountsRepository, AuthenticatedKey, hashApiKey } from '@cp/gateway-data-access';
import { AuthenticatedKeyCache, KEY_CACHE_TTL_MS, UNKNOWN_KEY_MAX_ENTRIES, UNKNOWN_KEY_TTL_MS } from './authenticated-key-cache';

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

  it('remembers an unknown key for a few seconds only, by digest, apart from the known keys', async () => {
    const clock = new ManualClock();
    let issued = false;
    const fake = fakeAccounts(() => (issued ? known : null));
    const cache = new AuthenticatedKeyCache(fake.accounts, clock);
    expect(await cache.authenticate(KEY)).toBeNull();
    expect(await cache.authenticate(KEY)).toBeNull();
    expect(fake.lookups).toEqual([hashApiKey(KEY)]);
    expect([cache.size, cache.unknownSize]).toEqual([0, 1]);
    // Were the key to become known meanwhile (it cannot: keys are made at issue time), it works once the miss expires.
    issued = true;
    clock.advance(UNKNOWN_KEY_TTL_MS - 1);
    expect(await cache.authenticate(KEY)).toBeNull();
    clock.advance(1);
    expect(await cache.authenticate(KEY)).toEqual(known);
    expect(fake.lookups).toHaveLength(2);
  });

  it('keeps a bounded number of unknown keys, dropping the oldest, and never pushes a known key out', async () => {
    const clock = new ManualClock();
    const fake = fakeAccounts(() => null);
    const cache = new AuthenticatedKeyCache(fake.accounts, clock);
    const first = 'sk_live_0000000000000000000000000000000000000000000';
    await cache.authenticate(first);
    for (let index = 0; index < UNKNOWN_KEY_MAX_ENTRIES; index += 1) {
      await cache.authenticate(`sk_live_${String(index).padStart(43, '-')}`);
    }
    expect(cache.unknownSize).toBe(UNKNOWN_KEY_MAX_ENTRIES);
    const before = fake.lookups.length;
    await cache.authenticate(first);
    expect(fake.lookups).toHaveLength(before + 1);
  });

  it('a cache clear (after a gap in the event stream) forgets unknown keys too', async () => {
    const fake = fakeAccounts(() => null);
    const cache = new AuthenticatedKeyCache(fake.accounts, new ManualClock());
    await cache.authenticate(KEY);
    cache.clear();
    await cache.authenticate(KEY);
    expect(fake.lookups).toHaveLength(2);
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
