// Webhook management as keys of each mode reach it (finding M1): a test key never sees, changes, deletes or
// retries a live webhook, and a webhook of the other mode answers exactly like an unknown id. And the ceiling of
// webhooks per account and key mode, counted under the owner's lock (the concurrent case is in
// webhook-endpoints.repository.spec.ts, on real PostgreSQL).
import { ManualClock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, WebhookDeliveryStatus, WebhookEventRetryView, WebhookRetryFailedView } from '@cp/contracts';
import { ErasedScopesRepository, Transaction, TransactionRepository } from '@cp/database';
import { RetryEventUseCase } from '../deliveries/retry-event.use-case';
import { RetryFailedRangeUseCase } from '../deliveries/retry-failed-range.use-case';
import { WebhookDeliveriesRepository } from '../deliveries/webhook-deliveries.repository';
import { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { SecretCipher } from '../endpoints/secret-cipher';
import { NewWebhookEndpoint, WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { DeliveryScope, WebhookOwner } from '../endpoints/webhook-mode';
import { WebhookManagementService } from './webhook-management.service';
import { webhooksTestSettings } from '../__fixtures__/webhooks-test-kit';

/** The transaction the fake runner hands out: only compared by identity. */
const TX = { fake: 'tx' } as unknown as Transaction;

/** The repository's contract in memory: a webhook is reached through its account and mode together. */
class InMemoryEndpoints {
  readonly rows: WebhookEndpointEntity[] = [];
  /** The calls that take part in a creation, in order, with whether they ran inside the transaction. */
  readonly steps: string[] = [];
  private nextId = 1;

  async lockOwner(tx: Transaction, owner: WebhookOwner): Promise<void> {
    this.steps.push(`lock ${owner.accountId}:${owner.mode}${tx === TX ? '' : ' outside the transaction'}`);
  }

  async countOwned(tx: Transaction, owner: WebhookOwner): Promise<number> {
    this.steps.push(`count${tx === TX ? '' : ' outside the transaction'}`);
    return (await this.listOwned(owner)).length;
  }

  async create(tx: Transaction, endpoint: NewWebhookEndpoint): Promise<WebhookEndpointEntity> {
    this.steps.push(`insert${tx === TX ? '' : ' outside the transaction'}`);
    const row = Object.assign(new WebhookEndpointEntity(), {
      id: this.nextId++,
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
      if (changes.isActive !== undefined) {
        row.isActive = changes.isActive;
      }
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
  /** Accounts an operator erased (`ErasedScopesRepository`). */
  const erasedAccounts = new Set<string>();
  const live: CallerContext = { accountId: '42', mode: 'live' };
  const test: CallerContext = { accountId: '42', mode: 'test' };
  const settings = webhooksTestSettings();
  let endpoints: InMemoryEndpoints;
  /** What reached the delivery side: which webhook, with which scope. */
  let calls: Array<{ call: string; webhookId: number; scope: DeliveryScope }>;
  let service: WebhookManagementService;

  beforeEach(() => {
    endpoints = new InMemoryEndpoints();
    calls = [];
    const transactions = {
      run: async <T>(work: (tx: Transaction) => Promise<T>): Promise<T> => {
        endpoints.steps.push('begin');
        try {
          const result = await work(TX);
          endpoints.steps.push('commit');
          return result;
        } catch (error) {
          endpoints.steps.push('rollback');
          throw error;
        }
      },
    };
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
      { isErased: (_tx: unknown, accountId: string) => Promise.resolve(erasedAccounts.has(accountId)) } as unknown as ErasedScopesRepository,
      new SecretCipher(settings.secretEncryptionKey),
      retryEvent as unknown as RetryEventUseCase,
      retryFailedRange as unknown as RetryFailedRangeUseCase,
      new ManualClock(new Date('2026-11-01T00:00:00.000Z')),
      transactions as unknown as TransactionRepository,
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

  it('no webhook for an erased account (a key authenticated just before the erasure): AUTH_NOT_AUTHENTICATED, nothing created', async () => {
    erasedAccounts.add(live.accountId);
    try {
      await expect(service.create(live, 'late', 'https://hooks.example.com/late')).rejects.toMatchObject({ code: ErrorCode.AUTH_NOT_AUTHENTICATED });
    } finally {
      erasedAccounts.clear();
    }
    expect(await service.list(live)).toEqual([]);
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

  describe('webhooks per account and key mode', () => {
    const other: CallerContext = { accountId: '43', mode: 'live' };
    const createAs = (caller: CallerContext, index: number) => service.create(caller, `hook ${index}`, `https://hooks.example.com/${index}`);

    it('up to the limit in each mode; one more is WEBHOOK_LIMIT_REACHED and creates nothing', async () => {
      for (let index = 0; index < settings.maxWebhooksPerMode; index += 1) {
        await createAs(live, index);
      }
      expect(await outcome(createAs(live, 99))).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
      expect(await service.list(live)).toHaveLength(settings.maxWebhooksPerMode);
      // The modes and the accounts are counted apart: a full live side takes no room from test or from another account.
      for (let index = 0; index < settings.maxWebhooksPerMode; index += 1) {
        await createAs(test, index);
      }
      expect(await outcome(createAs(test, 99))).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
      expect(await outcome(createAs(other, 0))).toBe('OK');
      expect(endpoints.rows).toHaveLength(2 * settings.maxWebhooksPerMode + 1);
    });

    it('an inactive webhook counts; deleting one makes room again', async () => {
      const first = await createAs(live, 0);
      for (let index = 1; index < settings.maxWebhooksPerMode; index += 1) {
        await createAs(live, index);
      }
      await service.update(live, first.id, { name: 'off', url: 'https://hooks.example.com/off', isActive: false });
      expect(await outcome(createAs(live, 99))).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
      await service.delete(live, first.id);
      expect(await outcome(createAs(live, 99))).toBe('OK');
      expect(await outcome(createAs(live, 100))).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
    });

    it("counts under the owner's lock and inserts in the same transaction", async () => {
      for (let index = 0; index < settings.maxWebhooksPerMode; index += 1) {
        await createAs(test, index);
      }
      endpoints.steps.length = 0;
      await createAs(live, 0);
      expect(await outcome(createAs(test, 99))).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
      expect(endpoints.steps).toEqual(['begin', 'lock 42:live', 'count', 'insert', 'commit', 'begin', 'lock 42:test', 'count', 'rollback']);
    });
  });
});
