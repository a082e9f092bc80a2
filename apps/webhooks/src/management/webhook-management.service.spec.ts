// Webhook management as keys of each mode reach it (finding M1): a test key never sees, changes, deletes or
// retries a live webhook, and a webhook of the other mode answers exactly like an unknown id.
import { ManualClock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, WebhookDeliveryStatus, WebhookEventRetryView, WebhookRetryFailedView } from '@cp/contracts';
import { RetryEventUseCase } from '../deliveries/retry-event.use-case';
import { RetryFailedRangeUseCase } from '../deliveries/retry-failed-range.use-case';
import { WebhookDeliveriesRepository } from '../deliveries/webhook-deliveries.repository';
import { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { SecretCipher } from '../endpoints/secret-cipher';
import { NewWebhookEndpoint, WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { DeliveryScope, WebhookOwner } from '../endpoints/webhook-mode';
import { WebhooksSettings } from '../webhooks.config';
import { WebhookManagementService } from './webhook-management.service';

/** The repository's contract in memory: a webhook is reached through its account and mode together. */
class InMemoryEndpoints {
  readonly rows: WebhookEndpointEntity[] = [];

  async create(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointEntity> {
    const row = Object.assign(new WebhookEndpointEntity(), {
      id: this.rows.length + 1,
      accountId: endpoint.owner.accountId,
      mode: endpoint.owner.mode,
      name: endpoint.name,
      url: endpoint.url,
      isActive: true,
      secretCiphertext: endpoint.secretCiphertext,
      createdAt: endpoint.at,
      updatedAt: endpoint.at,
    });
    this.rows.push(row);
    return row;
  }

  async findOwned(owner: WebhookOwner, id: number): Promise<WebhookEndpointEntity | null> {
    return this.rows.find((row) => row.id === id && row.accountId === owner.accountId && row.mode === owner.mode) ?? null;
  }

  async listOwned(owner: WebhookOwner): Promise<WebhookEndpointEntity[]> {
    return this.rows.filter((row) => row.accountId === owner.accountId && row.mode === owner.mode);
  }

  async update(owner: WebhookOwner, id: number, changes: { name: string; url: string; isActive?: boolean; at: Date }): Promise<WebhookEndpointEntity | null> {
    const row = await this.findOwned(owner, id);
    if (row) {
      Object.assign(row, { name: changes.name, url: changes.url, updatedAt: changes.at });
    }
    return row;
  }

  async delete(owner: WebhookOwner, id: number): Promise<boolean> {
    const row = await this.findOwned(owner, id);
    if (row) {
      this.rows.splice(this.rows.indexOf(row), 1);
    }
    return row !== null;
  }
}

describe('WebhookManagementService', () => {
  const live: CallerContext = { accountId: '42', mode: 'live' };
  const test: CallerContext = { accountId: '42', mode: 'test' };
  const settings: WebhooksSettings = {
    secretEncryptionKey: Buffer.alloc(32, 1),
    allowHttp: false,
    allowedTargetIps: [],
    dispatchIntervalMs: 1000,
    maxConcurrency: 4,
    maxConcurrencyPerEndpoint: 4,
    publicBaseUrl: 'https://api.example.com',
  };
  let endpoints: InMemoryEndpoints;
  /** What reached the delivery side: which webhook, with which scope. */
  let calls: Array<{ call: string; webhookId: number; scope: DeliveryScope }>;
  let service: WebhookManagementService;

  beforeEach(() => {
    endpoints = new InMemoryEndpoints();
    calls = [];
    const deliveries = {
      page: async (webhookId: number, _page: number, _limit: number, scope: DeliveryScope, _status?: WebhookDeliveryStatus): Promise<[WebhookDeliveryEntity[], number]> => {
        calls.push({ call: 'page', webhookId, scope });
        return [[], 0];
      },
    };
    const retryEvent = {
      execute: async (webhookId: number, _deliveryId: string, scope: DeliveryScope): Promise<WebhookEventRetryView> => {
        calls.push({ call: 'retry', webhookId, scope });
        return { event_id: 'e', success: true, status_code: 200, status: 'SUCCESS', error: null };
      },
    };
    const retryFailedRange = {
      execute: async (webhookId: number, fromDate: string, toDate: string, scope: DeliveryScope): Promise<WebhookRetryFailedView> => {
        calls.push({ call: 'retryFailed', webhookId, scope });
        return { fromDate, toDate, retried: 0 };
      },
    };
    service = new WebhookManagementService(
      endpoints as unknown as WebhookEndpointsRepository,
      deliveries as unknown as WebhookDeliveriesRepository,
      new SecretCipher(settings.secretEncryptionKey),
      retryEvent as unknown as RetryEventUseCase,
      retryFailedRange as unknown as RetryFailedRangeUseCase,
      new ManualClock(new Date('2026-11-01T00:00:00.000Z')),
      settings,
    );
  });

  /** The code an operation was refused with (or 'OK'). */
  const outcome = async (operation: Promise<unknown>): Promise<string> => {
    try {
      await operation;
      return 'OK';
    } catch (error) {
      return error instanceof DomainException ? error.code : String(error);
    }
  };

  it('a webhook records the mode of the key that created it; each mode lists only its own', async () => {
    const liveHook = await service.create(live, 'live', 'https://hooks.example.com/live');
    const testHook = await service.create(test, 'sandbox', 'https://hooks.example.com/sandbox');
    expect(endpoints.rows.map((row) => [row.id, row.mode])).toEqual([
      [liveHook.id, 'live'],
      [testHook.id, 'test'],
    ]);
    expect((await service.list(live)).map((view) => view.id)).toEqual([liveHook.id]);
    expect((await service.list(test)).map((view) => view.id)).toEqual([testHook.id]);
    // The view does not change shape: no mode field the spec does not have.
    expect(Object.keys(await service.get(test, testHook.id)).sort()).toEqual(['id', 'isActive', 'name', 'updatedAt', 'url']);
  });

  it('a test key cannot read, redirect, delete, list the events of or retry a live webhook: RESOURCE_NOT_FOUND, as for an unknown id', async () => {
    const liveHook = await service.create(live, 'live', 'https://hooks.example.com/live');
    const attempts = (id: number): Array<[string, () => Promise<unknown>]> => [
      ['get', () => service.get(test, id)],
      ['update', () => service.update(test, id, { name: 'x', url: 'https://attacker.example.com/' })],
      ['delete', () => service.delete(test, id)],
      ['listEvents', () => service.listEvents(test, id, 1, 20)],
      ['retry', () => service.retry(test, id, '1')],
      ['retryFailed', () => service.retryFailed(test, id, '2026-11-01', '2026-11-02')],
    ];
    for (const [name, attempt] of attempts(liveHook.id)) {
      expect([name, await outcome(attempt())]).toEqual([name, ErrorCode.RESOURCE_NOT_FOUND]);
    }
    // Exactly what an id that does not exist answers.
    for (const [name, attempt] of attempts(999)) {
      expect([name, await outcome(attempt())]).toEqual([name, ErrorCode.RESOURCE_NOT_FOUND]);
    }
    expect(endpoints.rows).toMatchObject([{ id: liveHook.id, url: 'https://hooks.example.com/live', mode: 'live' }]);
    expect(calls).toEqual([]);
  });

  it('a live key cannot reach a test webhook either', async () => {
    const testHook = await service.create(test, 'sandbox', 'https://hooks.example.com/sandbox');
    expect(await outcome(service.get(live, testHook.id))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(await outcome(service.update(live, testHook.id, { name: 'x', url: 'https://hooks.example.com/x' }))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(await outcome(service.delete(live, testHook.id))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(endpoints.rows).toHaveLength(1);
  });

  it("on its own webhook a test key lists and resends test events only; a live key's scope is every event", async () => {
    const testHook = await service.create(test, 'sandbox', 'https://hooks.example.com/sandbox');
    const liveHook = await service.create(live, 'live', 'https://hooks.example.com/live');
    await service.listEvents(test, testHook.id, 1, 20);
    await service.retry(test, testHook.id, '1');
    await service.retryFailed(test, testHook.id, '2026-11-01', '2026-11-02');
    await service.listEvents(live, liveHook.id, 1, 20);
    await service.retry(live, liveHook.id, '1');
    await service.retryFailed(live, liveHook.id, '2026-11-01', '2026-11-02');
    expect(calls).toEqual([
      { call: 'page', webhookId: testHook.id, scope: 'testEvents' },
      { call: 'retry', webhookId: testHook.id, scope: 'testEvents' },
      { call: 'retryFailed', webhookId: testHook.id, scope: 'testEvents' },
      { call: 'page', webhookId: liveHook.id, scope: 'all' },
      { call: 'retry', webhookId: liveHook.id, scope: 'all' },
      { call: 'retryFailed', webhookId: liveHook.id, scope: 'all' },
    ]);
  });

  it('a test key manages its own webhook like a live key its own', async () => {
    const testHook = await service.create(test, 'sandbox', 'https://hooks.example.com/sandbox');
    expect(await service.update(test, testHook.id, { name: 'renamed', url: 'https://hooks.example.com/s2' })).toMatchObject({ id: testHook.id, name: 'renamed' });
    expect(await service.delete(test, testHook.id)).toEqual({ id: testHook.id, deleted: true });
    expect(endpoints.rows).toEqual([]);
  });
});
