// The ceiling of webhooks per account and key mode on real PostgreSQL: creations that race at the limit are
// serialised by the owner's advisory lock, so the count each one reads is still true when it inserts.
import { ManualClock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode } from '@cp/contracts';
import { asTransaction, ErasedScopesRepository, TransactionRepository } from '@cp/database';
import { uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { RetryEventUseCase } from '../deliveries/retry-event.use-case';
import { RetryFailedRangeUseCase } from '../deliveries/retry-failed-range.use-case';
import { WebhookDeliveriesRepository } from '../deliveries/webhook-deliveries.repository';
import { SecretCipher } from '../endpoints/secret-cipher';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhookOwner } from '../endpoints/webhook-mode';
import { WebhookManagementService } from './webhook-management.service';
import { openWebhooksTestDatabase, webhooksTestSettings } from '../__fixtures__/webhooks-test-kit';

describe('webhooks per account and key mode (real PostgreSQL)', () => {
  const schema = uniqueName('it_webhooks_limit');
  const at = new Date('2026-11-01T00:00:00.000Z');
  const settings = webhooksTestSettings({ secretEncryptionKey: Buffer.alloc(32, 3) });
  let db: DataSource;
  let endpoints: WebhookEndpointsRepository;
  let service: WebhookManagementService;
  /** A fresh account per test: advisory locks are per database, and other test files share it. */
  let nextAccount = Math.floor(Math.random() * 1_000_000) * 100;

  const newAccount = (): string => String((nextAccount += 1));

  /** The public code a creation was refused with, or 'OK'. */
  const outcome = async (creation: Promise<unknown>): Promise<string> => {
    try {
      await creation;
      return 'OK';
    } catch (error) {
      return error instanceof DomainException ? error.code : String(error);
    }
  };

  const countOf = (owner: WebhookOwner): Promise<number> => endpoints.countOwned(asTransaction(db.manager), owner);

  beforeAll(async () => {
    db = await openWebhooksTestDatabase(schema, 'it-webhook-limit');
    endpoints = new WebhookEndpointsRepository(db);
    // Creation reaches neither the deliveries nor the retries.
    service = new WebhookManagementService(
      endpoints,
      {} as unknown as WebhookDeliveriesRepository,
      new ErasedScopesRepository(),
      new SecretCipher(settings.secretEncryptionKey),
      {} as unknown as RetryEventUseCase,
      {} as unknown as RetryFailedRangeUseCase,
      new ManualClock(at),
      new TransactionRepository(db),
      settings,
    );
  });

  afterAll(async () => {
    await db.query(`DROP SCHEMA "${schema}" CASCADE`);
    await db.destroy();
  });

  it('a creation that reaches the limit while another is uncommitted waits for it, then is refused', async () => {
    const caller: CallerContext = { accountId: newAccount(), mode: 'live' };
    await service.create(caller, 'first', 'https://hooks.example.com/1');
    await service.create(caller, 'second', 'https://hooks.example.com/2');

    // Another replica's creation of the third, between its count and its commit.
    const other = db.createQueryRunner();
    await other.connect();
    let racing: Promise<string>;
    try {
      await other.startTransaction();
      const otherTx = asTransaction(other.manager);
      await endpoints.lockOwner(otherTx, caller);
      expect(await endpoints.countOwned(otherTx, caller)).toBe(2);
      await endpoints.create(otherTx, { owner: caller, name: 'third', url: 'https://hooks.example.com/3', secretCiphertext: 'v1:x', at });

      let settled = false;
      racing = outcome(service.create(caller, 'fourth', 'https://hooks.example.com/4')).finally(() => {
        settled = true;
      });
      // Until it waits for the owner's lock (or, without one, has already finished on a count of 2).
      const waitingForLock = async (): Promise<boolean> => {
        const rows = await db.query<Array<{ waiting: string }>>(
          `SELECT count(*) AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = hashtext($1)::oid`,
          [`${caller.accountId}:${caller.mode}`],
        );
        return Number(rows[0].waiting) > 0;
      };
      while (!settled && !(await waitingForLock())) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await other.commitTransaction();
    } finally {
      if (other.isTransactionActive) {
        await other.rollbackTransaction();
      }
      await other.release();
    }

    expect(await racing).toBe(ErrorCode.WEBHOOK_LIMIT_REACHED);
    expect(await countOf(caller)).toBe(3);
  });

  it('of many concurrent creations from none, exactly the limit pass; the other mode and account are untouched', async () => {
    const caller: CallerContext = { accountId: newAccount(), mode: 'test' };
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, index) => outcome(service.create(caller, `hook ${index}`, `https://hooks.example.com/${index}`))));
    const expected: string[] = [...Array<string>(3).fill('OK'), ...Array<string>(7).fill(ErrorCode.WEBHOOK_LIMIT_REACHED)];
    expect([...outcomes].sort()).toEqual(expected.sort());
    expect(await countOf(caller)).toBe(settings.maxWebhooksPerMode);

    const live: CallerContext = { accountId: caller.accountId, mode: 'live' };
    expect(await outcome(service.create(live, 'live', 'https://hooks.example.com/live'))).toBe('OK');
    expect(await countOf(live)).toBe(1);
  });
});
