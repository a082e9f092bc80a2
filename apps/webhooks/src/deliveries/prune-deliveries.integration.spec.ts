// The pruning of the delivery log on real PostgreSQL: ended deliveries (SUCCESS, FAILED) go once the retention
// period has passed since they ended, in bounded batches; PENDING ones, recent ones and one an attempt holds stay.
import { ManualClock } from '@cp/clock';
import { asTransaction } from '@cp/database';
import { drainBatches } from '@cp/runtime';
import { uniqueName } from '@cp/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhooksSettings } from '../webhooks.config';
import { PruneDeliveriesUseCase } from './prune-deliveries.use-case';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { openWebhooksTestDatabase } from '../__fixtures__/webhooks-test-kit';

const DAY = 24 * 3600_000;

describe('PruneDeliveriesUseCase (real PostgreSQL)', () => {
  const schema = uniqueName('it_webhooks_prune');
  const now = new Date('2026-12-15T12:00:00.000Z');
  const clock = new ManualClock(now);
  const settings: Pick<WebhooksSettings, 'deliveryRetention'> = { deliveryRetention: { keepMs: 30 * DAY, intervalMs: 600_000, batchSize: 2 } };
  let db: DataSource;
  let deliveries: WebhookDeliveriesRepository;
  let prune: PruneDeliveriesUseCase;
  let webhookId: number;

  /** A delivery created `ageDays` ago, then put in the state given (as its attempts would have left it). */
  const delivery = async (state: { status: 'PENDING' | 'SUCCESS' | 'FAILED'; ageDays: number; endedDaysAgo?: number; leased?: boolean }): Promise<string> => {
    const createdAt = new Date(now.getTime() - state.ageDays * DAY);
    const sourceEventId = randomUUID();
    await deliveries.insertNew(asTransaction(db.manager), [
      {
        webhookId,
        accountId: '42',
        sourceEventId,
        eventId: randomUUID(),
        eventType: 'order.watermarkEmbed.completed',
        orderId: '1001',
        occurredAt: createdAt,
        data: { orderId: '1001', status: 'complete', testMode: true },
        download: null,
        links: null,
        status: 'PENDING',
        nextAttemptAt: createdAt,
        createdAt,
      },
    ]);
    const completedAt = state.endedDaysAgo === undefined ? null : new Date(now.getTime() - state.endedDaysAgo * DAY);
    // An UPDATE answers its rows and its count.
    const [[row]] = await db.query<[Array<{ id: string }>, number]>(
      `UPDATE webhook_delivery SET status = $2, completed_at = $3, next_attempt_at = CASE WHEN $2 = 'PENDING' THEN next_attempt_at END,
              lease_token = CASE WHEN $4 THEN gen_random_uuid() END, lease_expires_at = CASE WHEN $4 THEN now() + interval '1 minute' END
       WHERE source_event_id = $1 RETURNING id`,
      [sourceEventId, state.status, completedAt, state.leased === true],
    );
    return String(row.id);
  };

  const remaining = async (): Promise<string[]> =>
    (await db.query<Array<{ id: string }>>('SELECT id FROM webhook_delivery WHERE webhook_id = $1 ORDER BY id', [webhookId])).map((row) => String(row.id));

  beforeAll(async () => {
    db = await openWebhooksTestDatabase(schema, 'it-prune-deliveries');
    deliveries = new WebhookDeliveriesRepository(db);
    prune = new PruneDeliveriesUseCase(deliveries, clock, settings);
    const endpoints = new WebhookEndpointsRepository(db);
    const endpoint = await endpoints.create(asTransaction(db.manager), {
      owner: { accountId: '42', mode: 'test' },
      name: 'prune',
      url: 'https://hooks.example.com/prune',
      secretCiphertext: 'v1:x',
      at: now,
    });
    webhookId = endpoint.id;
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  it('deletes ended deliveries past the retention period in batches; keeps pending, recent and leased ones', async () => {
    const old = [
      await delivery({ status: 'SUCCESS', ageDays: 40, endedDaysAgo: 40 }),
      await delivery({ status: 'FAILED', ageDays: 32, endedDaysAgo: 31 }),
      await delivery({ status: 'SUCCESS', ageDays: 31, endedDaysAgo: 30.01 }),
      // Failed long ago, resent by hand 31 days ago: the time it ended counts, not its creation.
      await delivery({ status: 'SUCCESS', ageDays: 90, endedDaysAgo: 31 }),
      await delivery({ status: 'FAILED', ageDays: 35, endedDaysAgo: 35 }),
    ];
    const kept = [
      // Pending for 60 days (an inactive webhook's): never pruned.
      await delivery({ status: 'PENDING', ageDays: 60 }),
      // Created long ago, failed within the period (e.g. a range retry 10 days ago).
      await delivery({ status: 'FAILED', ageDays: 45, endedDaysAgo: 10 }),
      await delivery({ status: 'SUCCESS', ageDays: 29, endedDaysAgo: 29 }),
      // A manual attempt holds it: it stays until the attempt is recorded.
      await delivery({ status: 'FAILED', ageDays: 50, endedDaysAgo: 50, leased: true }),
    ];

    // Bounded batches: at most `batchSize` per statement, until none is left.
    expect(await prune.execute()).toBe(2);
    expect(await remaining()).toHaveLength(old.length + kept.length - 2);
    expect(await drainBatches(() => prune.execute(), () => false)).toBe(old.length - 2);
    expect(await remaining()).toEqual([...kept].sort((a, b) => Number(a) - Number(b)));

    // Time moves on: the recent ones age out in their turn; the pending one never does.
    clock.advance(25 * DAY);
    await db.query('UPDATE webhook_delivery SET lease_token = NULL, lease_expires_at = NULL WHERE id = $1', [kept[3]]);
    expect(await drainBatches(() => prune.execute(), () => false)).toBe(3);
    expect(await remaining()).toEqual([kept[0]]);
  });
});
