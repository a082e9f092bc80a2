// An account's erasure in the gateway's schema against real PostgreSQL (the gateway's migrations): its keys stop
// authenticating, the account row (owner's e-mail) goes, and the outbox holds one revocation per key and the
// erasure event for the services; another account is untouched, an erasure confirmed with another name erases
// nothing, and a second erasure finds nothing.
import { ManualClock } from '@cp/clock';
import { AccountErasureRequestedEvent, ApiKeyRevokedEvent, Events } from '@cp/contracts';
import { openServiceDatabase } from '@cp/database';
import { AccountEntity, AccountsRepository } from '@cp/gateway-data-access';
import { MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { GATEWAY_ENTITIES } from '../database/entities';
import { GATEWAY_MIGRATIONS } from '../database/migrations';

describe('AccountsRepository.eraseAccount (real PostgreSQL)', () => {
  const schema = uniqueName('it_erasure');
  let dataSource: DataSource;
  let accounts: AccountsRepository;

  beforeAll(async () => {
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...GATEWAY_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: GATEWAY_MIGRATIONS,
      applicationName: 'it-erasure',
    });
    accounts = new AccountsRepository(dataSource, new OutboxWriter(new ManualClock(new Date('2026-11-30T00:00:00.000Z'))));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const eventsOf = async <T>(subject: string): Promise<T[]> =>
    (await dataSource.getRepository(OutboxEventEntity).find({ where: { subject }, order: { seq: 'ASC' } })).map((row) => (row.envelope as { data: T }).data);

  it("deletes the account and its keys (refused from then on), announces each key revoked and the erasure; another account's stay", async () => {
    const { account } = await accounts.createAccount('erase-me', 'pro', 'jane.doe@example.com', 0);
    const { account: other } = await accounts.createAccount('keep-me', 'pro', 'john.roe@example.com', 0);
    const live = await accounts.issueKey(account.id, 'live');
    const test = await accounts.issueKey(account.id, 'test');
    await accounts.revokeKey(test.id, new Date());
    const kept = await accounts.issueKey(other.id, 'live');
    expect(await accounts.authenticate(live.key)).toMatchObject({ accountId: account.id });

    // Review: --confirm repeated the id, so an id mistyped once was mistyped twice (the refusal even printed the flag
    // to copy). The account's name is what the operator knows independently: another one erases nothing.
    expect(await accounts.eraseAccount(account.id, 'keep-me')).toBeNull();
    expect(await accounts.eraseAccount(other.id, 'erase-me')).toBeNull();
    expect(await accounts.authenticate(live.key)).toMatchObject({ accountId: account.id });
    expect(await eventsOf(Events.accountErasureRequested.subject)).toEqual([]);

    const erased = await accounts.eraseAccount(account.id, 'erase-me');
    expect(erased).toMatchObject({ accountId: account.id, keysDeleted: 2 });
    expect(await accounts.authenticate(live.key)).toBeNull();
    expect(await accounts.listKeys(account.id)).toEqual([]);
    expect(await accounts.findAccount(account.id)).toBeNull();
    expect(await dataSource.getRepository(AccountEntity).countBy({ ownerEmail: 'jane.doe@example.com' })).toBe(0);

    const revoked = await eventsOf<ApiKeyRevokedEvent>(Events.apiKeyRevoked.subject);
    // The test key's own revocation, then both keys at the erasure (a replica may still cache either).
    expect(revoked.filter((event) => event.accountId === account.id).map((event) => event.keyId).sort()).toEqual([test.id, live.id, test.id].sort());
    expect(await eventsOf<AccountErasureRequestedEvent>(Events.accountErasureRequested.subject)).toEqual([{ erasureId: erased?.erasureId, accountId: account.id }]);

    expect(await accounts.authenticate(kept.key)).toMatchObject({ accountId: other.id });
    expect(await accounts.findAccount(other.id)).toMatchObject({ ownerEmail: 'john.roe@example.com' });

    // Already erased: nothing found, nothing announced again.
    expect(await accounts.eraseAccount(account.id, 'erase-me')).toBeNull();
    expect(await eventsOf(Events.accountErasureRequested.subject)).toHaveLength(1);
  });
});
