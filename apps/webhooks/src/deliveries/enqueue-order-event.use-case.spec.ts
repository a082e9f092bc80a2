// Which endpoints an order event is enqueued for (finding M1): live webhooks get every event of the account,
// test webhooks only test orders' events.
import { ManualClock } from '@cp/clock';
import { asTransaction, ErasedScopesRepository } from '@cp/database';
import { KeyMode } from '@cp/contracts';
import { EntityManager } from 'typeorm';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { EnqueueOrderEventUseCase } from './enqueue-order-event.use-case';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { NewDelivery } from './webhook-delivery';
import { completedEvent } from './webhook-payload';

describe('enqueue an order event', () => {
  const tx = asTransaction({} as EntityManager);
  const active: Array<Pick<WebhookEndpointEntity, 'id' | 'mode'>> = [
    { id: 1, mode: 'live' },
    { id: 2, mode: 'test' },
    { id: 3, mode: 'live' },
  ];
  let inserted: NewDelivery[];
  /** Erased scopes, as `accountId/orderId` ('0': the account). */
  const erased = new Set<string>();
  const useCase = new EnqueueOrderEventUseCase(
    { listActiveForAccount: async () => active } as unknown as WebhookEndpointsRepository,
    { insertNew: async (_tx: unknown, deliveries: NewDelivery[]) => (inserted.push(...deliveries), deliveries.length) } as unknown as WebhookDeliveriesRepository,
    { isErased: async (_tx: unknown, accountId: string, orderId: string) => erased.has(`${accountId}/0`) || erased.has(`${accountId}/${orderId}`) } as unknown as ErasedScopesRepository,
    new ManualClock(new Date('2026-11-01T00:00:00.000Z')),
  );

  const event = (mode: KeyMode) =>
    completedEvent('3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', {
      orderId: '77',
      accountId: '42',
      mode,
      apiVersion: 'v3',
      orderType: 'watermarkEmbed',
      orderName: 'campaign',
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
      completedAt: '2026-11-01T00:00:00.000Z',
      fileCount: 1,
      download: { bucket: 'cp-outputs', key: '42/77/out.png', fileName: 'out.png' },
    });

  beforeEach(() => {
    inserted = [];
  });

  it('a live order goes to the live webhooks only, never to a test one', async () => {
    expect(await useCase.execute(tx, '42', 'source-1', event('live'))).toBe(2);
    expect(inserted.map((delivery) => delivery.webhookId)).toEqual([1, 3]);
  });

  it('a test order goes to every webhook: the test ones, and the live ones as before', async () => {
    expect(await useCase.execute(tx, '42', 'source-2', event('test'))).toBe(3);
    expect(inserted.map((delivery) => delivery.webhookId)).toEqual([1, 2, 3]);
    expect(inserted.every((delivery) => delivery.data.testMode === true)).toBe(true);
  });

  it("an erased order's or account's event, handled after the erasure, stores no delivery", async () => {
    erased.add('42/77');
    expect(await useCase.execute(tx, '42', 'source-3', event('live'))).toBe(0);
    erased.clear();
    erased.add('42/0');
    expect(await useCase.execute(tx, '42', 'source-4', event('live'))).toBe(0);
    erased.clear();
    expect(inserted).toEqual([]);
  });
});
