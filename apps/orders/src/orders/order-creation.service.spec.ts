// Order creation against real PostgreSQL (orders' own migrations): idempotency, credits, and no lock or
// connection held while the uploads service answers (slow or dead).
import { ManualClock } from '@cp/clock';
import { DomainException, ErrorCode, RpcContract, Rpcs } from '@cp/contracts';
import { asTransaction, ErasedScopesRepository, openServiceDatabase, serviceDataSourceOptions, TransactionRepository } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter, RpcClient } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { ORDERS_ENTITIES } from '../database/entities';
import { ORDERS_MIGRATIONS } from '../database/migrations';
import { embedOrderRules } from '../order-types/watermark-embed/embed-order.rules';
import { OrdersConfig } from '../orders.config';
import { IdempotencyRepository } from './idempotency.repository';
import { NewOrder, OrderCreationService } from './order-creation.service';
import { OrdersRepository } from './orders.repository';
import { UploadsClient } from './uploads.client';
import { RegisterMissingSlotsUseCase, SLOT_SWEEP_DELAY_MS } from '../upload-window/register-missing-slots.use-case';

/** A stand-in for the uploads service over RPC: answers at once, never, or fails, as the test says. */
class FakeUploadsRpc {
  calls = 0;
  /** What each call asked to register. */
  readonly requests: object[] = [];
  behaviour: 'answer' | 'hang' | 'fail' = 'answer';
  private release?: () => void;
  private hung?: () => void;

  /** File ids the fake uploads service has a slot for (registered by a call that was answered). */
  readonly slots = new Set<string>();

  request<TRequest extends object, TResponse>(contract: RpcContract<TRequest, TResponse>, payload: TRequest): Promise<TResponse> {
    if (contract.pattern === Rpcs.uploadsKnownSlots.pattern) {
      const asked = (payload as unknown as { fileIds: string[] }).fileIds;
      return Promise.resolve({ fileIds: asked.filter((fileId) => this.slots.has(fileId)) } as unknown as TResponse);
    }
    this.calls += 1;
    this.requests.push(payload);
    const files = (payload as unknown as { files: Array<{ fileId: string }> }).files;
    if (this.behaviour === 'answer') {
      files.forEach((file) => this.slots.add(file.fileId));
    }
    const answer = { urls: Object.fromEntries(files.map((file) => [file.fileId, `https://uploads.test/${file.fileId}`])) } as unknown as TResponse;
    if (this.behaviour === 'fail') {
      return Promise.reject(new DomainException(ErrorCode.WATERMARK_V2_UNAVAILABLE, 'uploads.register-slots is unavailable'));
    }
    if (this.behaviour === 'hang') {
      this.hung?.();
      return new Promise((resolve) => (this.release = () => resolve(answer)));
    }
    return Promise.resolve(answer);
  }

  /** Settles when the next call is made that the fake leaves unanswered ('hang'). */
  nextHangingCall(): Promise<void> {
    return new Promise((resolve) => (this.hung = resolve));
  }

  answerNow(): void {
    this.release?.();
  }
}

describe('OrderCreationService (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders_create');
  const clock = new ManualClock(new Date('2026-11-01T12:00:00.000Z'));
  const accountId = '601';
  let dataSource: DataSource;
  let ledger: CreditLedgerRepository;
  let rpc: FakeUploadsRpc;
  let creation: OrderCreationService;

  const embed = (idempotencyKey: string, texts = ['a', 'b'], originalFileUrl?: string): NewOrder => {
    const request = { idempotencyKey, files: [{ fileName: 'photo.png', watermarks: texts.map((text) => ({ text })), ...(originalFileUrl ? { originalFileUrl } : {}) }] };
    return { ...embedOrderRules(request), caller: { accountId, mode: 'live' }, operation: 'wtr-embed', idempotencyKey, request };
  };
  const balance = (): Promise<number> => ledger.balance(asTransaction(dataSource.manager), accountId);

  beforeAll(async () => {
    const options = { url: testInfra.databaseUrl, schema, entities: [...ORDERS_ENTITIES, ...MESSAGING_ENTITIES], migrations: ORDERS_MIGRATIONS, applicationName: 'it-create' };
    await (await openServiceDatabase(options)).destroy();
    // One connection: if creation kept it while waiting for the uploads service, nothing else could query.
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, poolSize: 1 })).initialize();
    ledger = new CreditLedgerRepository();
    rpc = new FakeUploadsRpc();
    const config = { retentionMs: 720 * 3600_000 } as OrdersConfig;
    creation = new OrderCreationService(
      config,
      new TransactionRepository(dataSource),
      new OrdersRepository(dataSource, new OutboxWriter(clock), ledger),
      new IdempotencyRepository(),
      new ErasedScopesRepository(),
      new UploadsClient(rpc as unknown as RpcClient),
      clock,
    );
    await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, 14, 'grant:1', 'test grant'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  beforeEach(() => {
    rpc.behaviour = 'answer';
  });

  it('creates a pending order, charges its credits and returns the upload URLs', async () => {
    const before = await balance();
    const { order, uploadUrls } = await creation.execute(embed('k-create'));
    expect(order.status).toBe('pending');
    expect(order.outputs.map((output) => output.fileId)).toEqual([`${order.files[0].id}-1`, `${order.files[0].id}-2`]);
    expect(uploadUrls).toEqual({ [order.files[0].id]: `https://uploads.test/${order.files[0].id}` });
    expect(await balance()).toBe(before - 2);
    const events = await dataSource.getRepository(OutboxEventEntity).findBy({ subject: 'evt.orders.order.status-changed' });
    expect(events.some((event) => (event.envelope as { data: { orderId: string } }).data.orderId === order.id)).toBe(true);
  });

  it('replays the same key and body (no second charge), refuses another body with 409', async () => {
    const first = await creation.execute(embed('k-replay'));
    const before = await balance();
    const again = await creation.execute(embed('k-replay'));
    expect(again.order.id).toBe(first.order.id);
    expect(await balance()).toBe(before);
    await expect(creation.execute(embed('k-replay', ['other']))).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_CONFLICT });
  });

  it('concurrent requests with one new key make one order, charged once; another body with that key is 409', async () => {
    // Requests of their own connections (the suite's data source has one): they really run at the same time.
    const concurrent = await new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: [...ORDERS_ENTITIES, ...MESSAGING_ENTITIES], migrations: [], applicationName: 'it-create-concurrent', poolSize: 6 })).initialize();
    try {
      const racing = new OrderCreationService(
        { retentionMs: 720 * 3600_000 } as OrdersConfig,
        new TransactionRepository(concurrent),
        new OrdersRepository(concurrent, new OutboxWriter(clock), ledger),
        new IdempotencyRepository(),
        new ErasedScopesRepository(),
        new UploadsClient(rpc as unknown as RpcClient),
        clock,
      );
      const before = await balance();
      const results = await Promise.allSettled([
        ...Array.from({ length: 5 }, () => racing.execute(embed('k-race'))),
        racing.execute(embed('k-race', ['other'])),
      ]);
      const created = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.order.id] : []));
      const refused = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as DomainException).code] : []));
      const rows = await dataSource.query<Array<{ id: string }>>(`SELECT order_id::text AS id FROM idempotency_record WHERE idempotency_key = 'k-race'`);
      expect(rows).toHaveLength(1);
      // Whichever body took the key first: its requests get its order, the others 409.
      expect(new Set(created)).toEqual(new Set([rows[0].id]));
      expect(refused.every((code) => code === ErrorCode.WATERMARK_V2_CONFLICT)).toBe(true);
      expect(created.length + refused.length).toBe(6);
      const charged = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "order" WHERE account_id = $1 AND id = $2`, [accountId, rows[0].id]);
      expect(charged[0].n).toBe(1);
      expect(before - (await balance())).toBe(created.length === 5 ? 2 : 1);
    } finally {
      await concurrent.destroy();
    }
  });

  it('refuses an order the balance cannot pay (USAGE_LIMIT_EXCEEDED) and creates nothing', async () => {
    const calls = rpc.calls;
    await expect(creation.execute(embed('k-too-big', ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']))).rejects.toMatchObject({
      code: ErrorCode.USAGE_LIMIT_EXCEEDED,
    });
    expect(rpc.calls).toBe(calls);
  });

  it('replays a known key even when the balance can no longer pay a new order (the write fails first, the record is found then)', async () => {
    const poor = '602';
    await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), poor, 2, 'grant:602', 'test grant'));
    const request = embed('k-poor-replay');
    const asPoor = { ...request, caller: { accountId: poor, mode: 'live' as const } };
    const first = await creation.execute(asPoor);
    expect(await ledger.balance(asTransaction(dataSource.manager), poor)).toBe(0);
    const again = await creation.execute(asPoor);
    expect(again.order.id).toBe(first.order.id);
    await expect(creation.execute({ ...asPoor, idempotencyKey: 'k-poor-new' })).rejects.toMatchObject({ code: ErrorCode.USAGE_LIMIT_EXCEEDED });
    const orders = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "order" WHERE account_id = $1`, [poor]);
    expect(orders[0].n).toBe(1);
  });

  it('refuses orders of the retired v2 watermark API after the retirement (spec 9.4), for every v2 type, charging nothing', async () => {
    const [credits, calls] = [await balance(), rpc.calls];
    const v2 = (key: string): NewOrder => ({ ...embed(key), apiVersion: 'v2', operation: 'v2-wtr-embed', conflictOnOtherBody: false });
    await expect(creation.execute(v2('k-v2-retired'))).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_API_SUNSET });
    expect([await balance(), rpc.calls]).toEqual([credits, calls]);
    clock.set(new Date('2026-10-01T00:00:00.000Z'));
    try {
      await expect(creation.execute(v2('k-v2-before'))).resolves.toMatchObject({ order: { state: { apiVersion: 'v2', status: 'pending' } } });
    } finally {
      clock.set(new Date('2026-11-01T12:00:00.000Z'));
    }
  });

  it('a slow uploads service holds no lock and no connection while it answers', async () => {
    rpc.behaviour = 'hang';
    // Waits for the call itself: `calls > 0` held from the earlier tests' calls, so the wait was a fixed 20 ms, and a
    // loaded machine's call came 110-140 ms after the request (the locks below were then read before the call).
    const hanging = rpc.nextHangingCall();
    const pending = creation.execute(embed('k-slow'));
    expect(await Promise.race([hanging.then(() => 'call hanging'), pending.then(() => 'created without the call')])).toBe('call hanging');
    // The only pooled connection is free, and no advisory lock of this key (or any) is held by it.
    // Only this test's backends: other suites running at the same time hold advisory locks of their own.
    const locks = await dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND a.application_name = 'it-create' AND l.pid <> pg_backend_pid()`,
    );
    expect(locks[0].n).toBe(0);
    const rows = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "order" WHERE account_id = $1`, [accountId]);
    expect(rows[0].n).toBeGreaterThan(0);
    rpc.answerNow();
    const { uploadUrls } = await pending;
    expect(Object.keys(uploadUrls)).toHaveLength(1);
  });

  it('a dead uploads service fails the request after the commit; the replay registers the slots then', async () => {
    rpc.behaviour = 'fail';
    await expect(creation.execute(embed('k-dead'))).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    const before = await balance();
    rpc.behaviour = 'answer';
    const { order, uploadUrls } = await creation.execute(embed('k-dead'));
    expect(uploadUrls).toEqual({ [order.files[0].id]: `https://uploads.test/${order.files[0].id}` });
    expect(await balance()).toBe(before);
  });
  it('a registration lost after the commit is made by the sweep some seconds later, once; orders whose call worked are only asked about', async () => {
    // An account of its own: the suite's account has credits for the other tests only.
    const other = '603';
    await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), other, 4, 'grant:603', 'test grant'));
    const sweep = new RegisterMissingSlotsUseCase(new OrdersRepository(dataSource, new OutboxWriter(clock), ledger), new UploadsClient(rpc as unknown as RpcClient), clock);
    // Everything pending before this test is the sweep's to look at once, now: those orders' calls were answered.
    clock.advance(SLOT_SWEEP_DELAY_MS);
    while ((await sweep.execute()) > 0);
    // The uploads call times out (or orders is killed right after the commit) and the client never repeats its request.
    rpc.behaviour = 'fail';
    const lost = embed('k-lost-call', ['a'], 'https://images.example.com/photo.png');
    await expect(creation.execute({ ...lost, caller: { accountId: other, mode: 'live' } })).rejects.toMatchObject({ code: ErrorCode.WATERMARK_V2_UNAVAILABLE });
    rpc.behaviour = 'answer';
    const { order: answered } = await creation.execute({ ...embed('k-call-worked'), caller: { accountId: other, mode: 'live' } });
    const [{ id: orderId }] = await dataSource.query<Array<{ id: string }>>(`SELECT order_id::text AS id FROM idempotency_record WHERE idempotency_key = 'k-lost-call'`);
    const [file] = await dataSource.query<Array<{ id: string }>>(`SELECT id::text AS id FROM order_file WHERE order_id = $1`, [orderId]);
    const calls = rpc.calls;
    // Too young yet: its own call may still be on its way.
    expect(await sweep.execute()).toBe(0);
    clock.advance(SLOT_SWEEP_DELAY_MS);
    expect(await sweep.execute()).toBe(2);
    expect(await sweep.execute()).toBe(0);
    // One registration, the lost one, as the call would have made it (its URL file is then fetched by uploads).
    expect(rpc.requests.slice(calls)).toEqual([
      {
        orderId,
        accountId: other,
        mode: 'live',
        orderType: 'watermarkEmbed',
        files: [{ fileId: file.id, fileName: 'photo.png', objectKey: `${other}/${orderId}/inputs/${file.id}/photo.png`, sourceUrl: 'https://images.example.com/photo.png' }],
        orderCreatedAt: new Date(clock.nowMs() - SLOT_SWEEP_DELAY_MS).toISOString(),
      },
    ]);
    expect(rpc.slots.has(file.id) && rpc.slots.has(answered.files[0].id)).toBe(true);
  });

  it('test orders are bounded per account and rolling 24 hours (429 RATE_LIMIT_EXCEEDED); a replay still finds its order, live orders are not counted', async () => {
    const quota = new OrderCreationService(
      { retentionMs: 720 * 3600_000, testOrdersPerDay: 2 } as OrdersConfig,
      new TransactionRepository(dataSource),
      new OrdersRepository(dataSource, new OutboxWriter(clock), ledger),
      new IdempotencyRepository(),
      new ErasedScopesRepository(),
      new UploadsClient(rpc as unknown as RpcClient),
      clock,
    );
    const tester = '602';
    const testOrder = (idempotencyKey: string): NewOrder => ({ ...embed(idempotencyKey, ['t']), caller: { accountId: tester, mode: 'test' } });
    const refusal = (key: string) => quota.execute(testOrder(key)).then(() => null, (error: unknown) => (error instanceof DomainException ? [error.code, error.retryAfterSeconds] : error));
    const first = await quota.execute(testOrder('quota-1'));
    await quota.execute(testOrder('quota-2'));
    // Capacity comes back when the first of the two turns 24 hours old: an hour from now, said as Retry-After.
    clock.advance(23 * 3600_000);
    expect(await refusal('quota-3')).toEqual([ErrorCode.RATE_LIMIT_EXCEEDED, 3600]);
    expect((await quota.execute(testOrder('quota-1'))).order.id).toBe(first.order.id);
    // A live order of the same account is not a test order.
    await quota.execute({ ...embed('quota-live', ['l']), caller: { accountId, mode: 'live' } });
    clock.advance(3600_000);
    expect(await refusal('quota-4')).toBeNull();

    // Review: a test order costs nothing, so a key the gateway authenticated just before its account's erasure made one.
    await new ErasedScopesRepository().markErased(asTransaction(dataSource.manager), { accountId: tester });
    expect(await refusal('quota-5')).toEqual([ErrorCode.AUTH_NOT_AUTHENTICATED, undefined]);
  });
});
