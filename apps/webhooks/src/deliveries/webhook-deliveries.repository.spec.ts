// Deliveries on real PostgreSQL, as a test key reaches them (finding M1): its scope admits test orders' events
// only, in the list, the manual retry and the range retry; and the dispatcher never claims a live event for a
// test webhook, whatever put it there.
import { asTransaction } from '@cp/database';
import { uniqueName } from '@cp/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { DispatchLoad, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { NewDelivery, WebhookDelivery } from './webhook-delivery';
import { openWebhooksTestDatabase } from '../__fixtures__/webhooks-test-kit';

describe('WebhookDeliveriesRepository scopes (real PostgreSQL)', () => {
  const schema = uniqueName('it_webhooks_deliveries');
  const createdAt = new Date('2026-11-01T10:00:00.000Z');
  let db: DataSource;
  let deliveries: WebhookDeliveriesRepository;
  let endpoints: WebhookEndpointsRepository;

  const delivery = (webhookId: number, testMode: boolean, accountId = '42'): NewDelivery => ({
    webhookId,
    accountId,
    sourceEventId: randomUUID(),
    eventId: randomUUID(),
    eventType: 'order.watermarkEmbed.completed',
    orderId: testMode ? '2001' : '1001',
    occurredAt: createdAt,
    data: { orderId: testMode ? '2001' : '1001', status: 'complete', testMode },
    download: null,
    links: null,
    status: 'PENDING',
    nextAttemptAt: createdAt,
    createdAt,
  });

  /** Inserts the deliveries and returns their ids, in order; `failed` ones are then marked FAILED (as after their last attempt). */
  const insert = async (rows: Array<{ webhookId: number; testMode: boolean; failed?: boolean }>): Promise<string[]> => {
    const ids: string[] = [];
    for (const row of rows) {
      const made = delivery(row.webhookId, row.testMode);
      await deliveries.insertNew(asTransaction(db.manager), [made]);
      const [{ id }] = await db.query<Array<{ id: string }>>('SELECT id FROM webhook_delivery WHERE source_event_id = $1', [made.sourceEventId]);
      if (row.failed) {
        await db.query(`UPDATE webhook_delivery SET status = 'FAILED', next_attempt_at = NULL WHERE id = $1`, [id]);
      }
      ids.push(String(id));
    }
    return ids;
  };

  /** A replica with nothing in flight. */
  const idle: DispatchLoad = { byEndpoint: new Map(), byAccount: new Map() };

  const hook = (mode: 'live' | 'test', name: string, accountId = '42') =>
    endpoints.create(asTransaction(db.manager), { owner: { accountId, mode }, name, url: `https://hooks.example.com/${name}`, secretCiphertext: 'v1:x', at: createdAt });

  beforeAll(async () => {
    db = await openWebhooksTestDatabase(schema, 'it-deliveries');
    deliveries = new WebhookDeliveriesRepository(db);
    endpoints = new WebhookEndpointsRepository(db);
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  it('lists every delivery for the live scope and only test events for the test scope', async () => {
    const webhook = await hook('live', 'list');
    const [liveId, testId] = await insert([
      { webhookId: webhook.id, testMode: false },
      { webhookId: webhook.id, testMode: true },
    ]);
    const [all, allTotal] = await deliveries.page(webhook.id, 1, 20, 'all');
    expect([all.map((row) => row.id).sort(), allTotal]).toEqual([[liveId, testId].sort(), 2]);
    const [tests, testTotal] = await deliveries.page(webhook.id, 1, 20, 'testEvents');
    expect([tests.map((row) => row.id), testTotal]).toEqual([[testId], 1]);
    const [pending] = await deliveries.page(webhook.id, 1, 20, 'testEvents', 'PENDING');
    expect(pending.map((row) => row.id)).toEqual([testId]);
    expect((await deliveries.page(webhook.id, 1, 20, 'testEvents', 'FAILED'))[1]).toBe(0);
  });

  it('a manual retry in the test scope finds no live event (not found, not busy) and leases a test one', async () => {
    const webhook = await hook('live', 'retry-one');
    const [liveId, testId] = await insert([
      { webhookId: webhook.id, testMode: false },
      { webhookId: webhook.id, testMode: true },
    ]);
    expect(await deliveries.claimOne(webhook.id, liveId, 'testEvents')).toBeNull();
    const [{ lease_token }] = await db.query<Array<{ lease_token: string | null }>>('SELECT lease_token FROM webhook_delivery WHERE id = $1', [liveId]);
    expect(lease_token).toBeNull();
    const claimed = await deliveries.claimOne(webhook.id, testId, 'testEvents');
    expect(claimed).toMatchObject({ id: testId, data: { testMode: true } });
    // Held by that lease: busy in its own scope, still unknown to the test scope for the live one.
    expect(await deliveries.claimOne(webhook.id, testId, 'testEvents')).toBe('busy');
    expect(await deliveries.claimOne(webhook.id, liveId, 'all')).toMatchObject({ id: liveId, data: { testMode: false } });
  });

  it('a range retry in the test scope queues only FAILED test events', async () => {
    const webhook = await hook('live', 'retry-range');
    const [liveId, testId] = await insert([
      { webhookId: webhook.id, testMode: false, failed: true },
      { webhookId: webhook.id, testMode: true, failed: true },
    ]);
    const round = WebhookDelivery.newRound(new Date('2026-11-02T00:00:00.000Z'));
    const from = new Date('2026-11-01T00:00:00.000Z');
    const to = new Date('2026-11-02T00:00:00.000Z');
    expect(await deliveries.requeueFailed(webhook.id, from, to, round, 'testEvents')).toBe(1);
    const statuses = await db.query<Array<{ id: string; status: string }>>('SELECT id, status FROM webhook_delivery WHERE webhook_id = $1 ORDER BY id', [webhook.id]);
    expect(statuses.map((row) => [String(row.id), row.status])).toEqual([
      [liveId, 'FAILED'],
      [testId, 'PENDING'],
    ]);
    expect(await deliveries.requeueFailed(webhook.id, from, to, round, 'all')).toBe(1);
  });

  it('the dispatcher never claims a live event for a test webhook; live webhooks get both kinds', async () => {
    const testHook = await hook('test', 'due-test');
    const liveHook = await hook('live', 'due-live');
    const [strayLive, testEvent, liveOnLive, testOnLive] = await insert([
      // Enqueueing never makes this row (webhookReceives); the claim must not send it even so.
      { webhookId: testHook.id, testMode: false },
      { webhookId: testHook.id, testMode: true },
      { webhookId: liveHook.id, testMode: false },
      { webhookId: liveHook.id, testMode: true },
    ]);
    const claimed = await deliveries.claimDue(new Date('2026-11-01T11:00:00.000Z'), idle, { perEndpoint: 10, perAccount: 100 }, 100);
    const ours = claimed.map((claim) => claim.id).filter((id) => [strayLive, testEvent, liveOnLive, testOnLive].includes(id));
    expect(ours.sort()).toEqual([testEvent, liveOnLive, testOnLive].sort());
  });

  it('the pending-age metric leaves out what the dispatcher never sends (a live event under a test webhook)', async () => {
    const testHook = await hook('test', 'age-test');
    const liveHook = await hook('live', 'age-live');
    const [stray, waiting] = await insert([
      { webhookId: testHook.id, testMode: false },
      { webhookId: liveHook.id, testMode: false },
    ]);
    await db.query(`UPDATE webhook_delivery SET created_at = '2000-01-01T00:00:00Z' WHERE id = $1`, [stray]);
    await db.query(`UPDATE webhook_delivery SET created_at = '2001-01-01T00:00:00Z' WHERE id = $1`, [waiting]);
    expect((await deliveries.oldestPendingCreatedAt())?.toISOString()).toBe('2001-01-01T00:00:00.000Z');
  });

  it('the dispatcher claims at most its share per account, over all the account\'s endpoints, besides the share per endpoint', async () => {
    const busyAccount = '4201';
    const quietAccount = '4202';
    const busyHooks = [await hook('live', 'share-1', busyAccount), await hook('live', 'share-2', busyAccount), await hook('live', 'share-3', busyAccount)];
    const quietHook = await hook('live', 'share-quiet', quietAccount);
    const inserted = async (webhookId: number, accountId: string, count: number): Promise<void> => {
      for (let index = 0; index < count; index += 1) {
        await deliveries.insertNew(asTransaction(db.manager), [delivery(webhookId, false, accountId)]);
      }
    };
    // A backlog of 12 on the busy account (4 per endpoint), all due before the quiet account's one.
    for (const busyHook of busyHooks) {
      await inserted(busyHook.id, busyAccount, 4);
    }
    await inserted(quietHook.id, quietAccount, 1);
    const accountsOf = (claims: Array<{ accountId: string }>) =>
      claims.reduce((counts, claim) => ({ ...counts, [claim.accountId]: (counts[claim.accountId] ?? 0) + 1 }), {} as Record<string, number>);
    const shares = { perEndpoint: 4, perAccount: 5 };
    const at = new Date('2026-11-01T11:00:00.000Z');

    const first = (await deliveries.claimDue(at, idle, shares, 100)).filter((claim) => [busyAccount, quietAccount].includes(claim.accountId));
    expect(accountsOf(first)).toEqual({ [busyAccount]: 5, [quietAccount]: 1 });

    // What the replica already runs counts: with 3 of the busy account's in flight, 2 more; none once it is full.
    const running: DispatchLoad = { byEndpoint: new Map(), byAccount: new Map([[busyAccount, 3]]) };
    const second = (await deliveries.claimDue(at, running, shares, 100)).filter((claim) => claim.accountId === busyAccount);
    expect(second).toHaveLength(2);
    const full: DispatchLoad = { byEndpoint: new Map(), byAccount: new Map([[busyAccount, 5]]) };
    expect((await deliveries.claimDue(at, full, shares, 100)).filter((claim) => claim.accountId === busyAccount)).toEqual([]);
  });
});
