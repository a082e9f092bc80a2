// Webhook endpoints on real PostgreSQL: the key mode column (migration, existing rows, the check) and every read
// and write going through the owner, the account and the key mode together (finding M1).
import { asTransaction, openServiceDatabase } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { WEBHOOKS_ENTITIES } from '../database/entities';
import { WEBHOOKS_MIGRATIONS } from '../database/migrations';
import { WebhookEndpointMode1796300000000 } from '../database/migrations/1796300000000-WebhookEndpointMode';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookOwner } from './webhook-mode';

describe('WebhookEndpointsRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_webhooks_endpoints');
  const at = new Date('2026-11-01T00:00:00.000Z');
  const live: WebhookOwner = { accountId: '42', mode: 'live' };
  const test: WebhookOwner = { accountId: '42', mode: 'test' };
  const otherAccount: WebhookOwner = { accountId: '43', mode: 'live' };
  let db: DataSource;
  let endpoints: WebhookEndpointsRepository;
  let preExisting: number;

  const open = (migrations: typeof WEBHOOKS_MIGRATIONS, applicationName: string): Promise<DataSource> =>
    openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...WEBHOOKS_ENTITIES, ...MESSAGING_ENTITIES], migrations, applicationName });

  const create = (owner: WebhookOwner, name: string) =>
    endpoints.create(asTransaction(db.manager), { owner, name, url: `https://hooks.example.com/${name}`, secretCiphertext: 'v1:x', at });

  beforeAll(async () => {
    // A webhook made before the migration, when webhooks belonged to the account alone.
    const before = await open(
      WEBHOOKS_MIGRATIONS.filter((migration) => migration !== WebhookEndpointMode1796300000000),
      'it-endpoints-before',
    );
    const rows = await before.query<Array<{ id: number }>>(
      `INSERT INTO webhook_endpoint (account_id, name, url, secret_ciphertext) VALUES (42, 'old', 'https://hooks.example.com/old', 'v1:x') RETURNING id`,
    );
    preExisting = rows[0].id;
    await before.destroy();
    db = await open(WEBHOOKS_MIGRATIONS, 'it-endpoints');
    endpoints = new WebhookEndpointsRepository(db);
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  it('the migration makes existing webhooks live, and the entities match the migrated schema', async () => {
    expect((await endpoints.findOwned(live, preExisting))?.mode).toBe('live');
    expect(await endpoints.findOwned(test, preExisting)).toBeNull();
    const pending = await db.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('a row without a mode (a replica of the previous release, during a rolling update) is live; no other value', async () => {
    const [row] = await db.query<Array<{ id: number; mode: string }>>(
      `INSERT INTO webhook_endpoint (account_id, name, url, secret_ciphertext) VALUES (4242, 'x', 'https://hooks.example.com/x', 'v1:x') RETURNING id, mode`,
    );
    expect(row.mode).toBe('live');
    await db.query('DELETE FROM webhook_endpoint WHERE id = $1', [row.id]);
    await expect(
      db.query(`INSERT INTO webhook_endpoint (account_id, name, url, secret_ciphertext, mode) VALUES (42, 'x', 'https://hooks.example.com/x', 'v1:x', 'sandbox')`),
    ).rejects.toThrow(/ck_webhook_endpoint_mode/);
  });

  it('finds, lists, updates and deletes a webhook only through its own account and mode', async () => {
    const liveHook = await create(live, 'live-hook');
    const testHook = await create(test, 'test-hook');
    expect([liveHook.mode, testHook.mode]).toEqual(['live', 'test']);

    expect((await endpoints.listOwned(live)).map((endpoint) => endpoint.id)).toEqual([preExisting, liveHook.id]);
    expect((await endpoints.listOwned(test)).map((endpoint) => endpoint.id)).toEqual([testHook.id]);
    expect(await endpoints.listOwned(otherAccount)).toEqual([]);

    expect(await endpoints.findOwned(test, liveHook.id)).toBeNull();
    expect(await endpoints.findOwned(live, testHook.id)).toBeNull();
    expect(await endpoints.findOwned(otherAccount, liveHook.id)).toBeNull();
    expect((await endpoints.findOwned(live, liveHook.id))?.name).toBe('live-hook');

    const redirect = { name: 'evil', url: 'https://attacker.example.com/', isActive: true, at };
    expect(await endpoints.update(test, liveHook.id, redirect)).toBeNull();
    expect(await endpoints.update(otherAccount, liveHook.id, redirect)).toBeNull();
    expect(await endpoints.delete(test, liveHook.id)).toBe(false);
    expect(await endpoints.delete(live, testHook.id)).toBe(false);
    const unchanged = await endpoints.findById(liveHook.id);
    expect(unchanged).toMatchObject({ name: 'live-hook', url: 'https://hooks.example.com/live-hook', mode: 'live' });

    expect(await endpoints.update(test, testHook.id, { name: 'renamed', url: 'https://hooks.example.com/t2', at })).toMatchObject({ name: 'renamed', mode: 'test' });
    expect(await endpoints.delete(test, testHook.id)).toBe(true);
    expect(await endpoints.findById(testHook.id)).toBeNull();
  });

  it('the active endpoints of an account, for enqueueing, are those of both modes', async () => {
    const testHook = await create(test, 'test-active');
    const ids = (await endpoints.listActiveForAccount(asTransaction(db.manager), '42')).map((endpoint) => [endpoint.id, endpoint.mode]);
    expect(ids).toContainEqual([testHook.id, 'test']);
    expect(ids).toContainEqual([preExisting, 'live']);
  });
});
