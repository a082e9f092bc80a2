// Expiry and v2 retirement of orders against real PostgreSQL (orders' own migrations).
import { ManualClock } from '@cp/clock';
import { KeyMode, OrderStatusChangedEvent, V2_RETIREMENT_AT } from '@cp/contracts';
import { TransactionRepository, asTransaction } from '@cp/database';
import { OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { uniqueName } from '@cp/testing';
import { DataSource, In } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { ApiVersion } from '../domain/order';
import { OrderEntity } from '../orders/order.entity';
import { OrdersRepository } from '../orders/orders.repository';
import { RetireV2OrdersUseCase } from '../v2/retire-v2-orders.use-case';
import { ExpireOrdersUseCase } from './expire-orders.use-case';
import { ForgetTestOrderUrlsUseCase } from './forget-test-order-urls.use-case';
import { openOrdersTestDatabase } from '../__fixtures__/orders-test-database';

describe('orders expiry and v2 retirement (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders');
  const clock = new ManualClock(new Date('2026-10-08T12:00:00.000Z'));
  const accountId = '501';
  let dataSource: DataSource;
  let ledger: CreditLedgerRepository;
  let expire: ExpireOrdersUseCase;
  let retire: RetireV2OrdersUseCase;
  let forgetTestOrderUrls: ForgetTestOrderUrlsUseCase;

  const order = async (fields: { status: OrderEntity['status']; apiVersion?: ApiVersion; expiresInMs?: number; credits?: number; outputKey?: string; mode?: KeyMode }): Promise<string> => {
    const saved = await dataSource.getRepository(OrderEntity).save({
      accountId,
      mode: fields.mode ?? ('live' as const),
      type: 'watermarkEmbed' as const,
      apiVersion: fields.apiVersion ?? 'v3',
      status: fields.status,
      processingDelayed: false,
      creditsCharged: fields.credits ?? 0,
      packageKey: fields.outputKey ?? null,
      expiresAt: new Date(clock.nowMs() + (fields.expiresInMs ?? 30 * 24 * 3600_000)),
      createdAt: clock.now(),
    });
    await dataSource.getRepository(OrderOutputEntity).save({
      fileId: `${saved.id}-1`,
      orderId: saved.id,
      inputFileId: saved.id,
      inputPosition: 0,
      outputIndex: 0,
      watermarkText: 't',
      status: fields.outputKey ? ('completed' as const) : ('pending' as const),
      mediaKind: 'image' as const,
      objectKey: fields.outputKey ?? null,
      failureCode: null,
    });
    return saved.id;
  };

  const row = (id: string) => dataSource.getRepository(OrderEntity).findOneByOrFail({ id });
  const balance = async (): Promise<number> => ledger.balance(asTransaction(dataSource.manager), accountId);
  const statusEvents = async (orderId: string): Promise<OrderStatusChangedEvent[]> =>
    (await dataSource.getRepository(OutboxEventEntity).find({ order: { seq: 'ASC' } }))
      .filter((event) => event.subject === 'evt.orders.order.status-changed')
      .map((event) => (event.envelope as { data: OrderStatusChangedEvent }).data)
      .filter((event) => event.orderId === orderId);

  beforeAll(async () => {
    dataSource = await openOrdersTestDatabase(schema, 'it');
    ledger = new CreditLedgerRepository();
    const repository = new OrdersRepository(dataSource, new OutboxWriter(clock), ledger);
    const transactions = new TransactionRepository(dataSource);
    expire = new ExpireOrdersUseCase(transactions, repository, clock);
    retire = new RetireV2OrdersUseCase(transactions, repository, clock);
    forgetTestOrderUrls = new ForgetTestOrderUrlsUseCase(repository, clock);
    await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, 100, 'grant:1', 'test grant'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  describe('ExpireOrdersUseCase', () => {
    it('expires due orders, nulls their object keys and announces it; refuses orders not due; idempotent', async () => {
      const due = await order({ status: 'complete', expiresInMs: -1000, outputKey: `${accountId}/x/outputs/1-1/a.png` });
      const notDue = await order({ status: 'complete', outputKey: `${accountId}/y/outputs/1-1/a.png` });
      const result = await expire.execute({ orderIds: [due, notDue, '999999'] });
      expect(result).toEqual({ expired: [due], skipped: [notDue, '999999'] });
      const expired = await row(due);
      expect(expired).toMatchObject({ status: 'expired', packageKey: null });
      const outputs = await dataSource.getRepository(OrderOutputEntity).findBy({ orderId: due });
      expect(outputs.map((output) => output.objectKey)).toEqual([null]);
      expect((await row(notDue)).status).toBe('complete');
      const events = await statusEvents(due);
      expect(events.map((event) => event.status)).toEqual(['expired']);
      expect(events[0].expiresAt).toBe(expired.expiresAt.toISOString());

      expect(await expire.execute({ orderIds: [due] })).toEqual({ expired: [due], skipped: [] });
      expect(await statusEvents(due)).toHaveLength(1);
    });

    it("forgets the files' source URLs (the client's, possibly signed) when the order expires; a due order's only", async () => {
      const file = (orderId: string) => ({
        orderId,
        position: 0,
        role: 'input' as const,
        fileName: 'photo.jpg',
        sourceUrl: 'https://files.example.com/photo.jpg?X-Amz-Signature=abc',
        mediaKind: 'image' as const,
        status: 'uploaded' as const,
      });
      const due = await order({ status: 'complete', expiresInMs: -1000 });
      const notDue = await order({ status: 'complete' });
      await dataSource.getRepository(OrderFileEntity).save([file(due), file(notDue)]);
      expect(await expire.execute({ orderIds: [due, notDue] })).toEqual({ expired: [due], skipped: [notDue] });
      const urls = async (orderId: string) => (await dataSource.getRepository(OrderFileEntity).findBy({ orderId })).map((row) => [row.fileName, row.sourceUrl]);
      // The order record keeps its file names: the API still shows the expired order.
      expect(await urls(due)).toEqual([['photo.jpg', null]]);
      expect(await urls(notDue)).toEqual([['photo.jpg', file(notDue).sourceUrl]]);
    });

    it("forgets a zero-copy order's output targets (the client's presigned PUT URLs) when it expires; a due order's only", async () => {
      const options = { strength: 'low', zeroCopy: true, noDownload: true, targets: { 'a.png': { url: 'https://bucket.example.com/a.png?X-Amz-Signature=abc', presignedUrlExpiresAt: '2026-10-09T00:00:00.000Z' } } };
      const due = await order({ status: 'complete', expiresInMs: -1000 });
      const notDue = await order({ status: 'complete' });
      await dataSource.getRepository(OrderEntity).update({ id: In([due, notDue]) }, { options });
      expect(await expire.execute({ orderIds: [due, notDue] })).toEqual({ expired: [due], skipped: [notDue] });
      expect((await row(due)).options).toEqual({ ...options, targets: { 'a.png': { presignedUrlExpiresAt: '2026-10-09T00:00:00.000Z' } } });
      expect((await row(notDue)).options).toEqual(options);
    });

    it('refunds orders that expire without completing (pending, inProgress), once; complete and failed orders get nothing back', async () => {
      const charged = async (status: OrderEntity['status'], credits: number): Promise<string> => {
        const id = await order({ status, credits, expiresInMs: -1000 });
        await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, -credits, `charge:${id}`, 'charge'));
        if (status === 'failed') {
          await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, credits, `restore:${id}`, 'order failed'));
        }
        return id;
      };
      const start = await balance();
      const stuck = await charged('inProgress', 4);
      const waiting = await charged('pending', 2);
      const delivered = await charged('complete', 1);
      const failed = await charged('failed', 8);
      expect(await balance()).toBe(start - 7);
      const ids = [stuck, waiting, delivered, failed];
      expect(await expire.execute({ orderIds: ids })).toEqual({ expired: ids, skipped: [] });
      expect(await balance()).toBe(start - 1);
      expect(await expire.execute({ orderIds: ids })).toEqual({ expired: ids, skipped: [] });
      expect(await balance()).toBe(start - 1);
    });
  });

  describe('ForgetTestOrderUrlsUseCase (the end of a test order\'s retention)', () => {
    it("forgets a test order's source URLs and output targets once its retention ended, keeps its test status; never a live or a not yet ended order's", async () => {
      const options = { strength: 'low', zeroCopy: true, noDownload: true, targets: { 'a.png': { url: 'https://bucket.example.com/a.png?X-Amz-Signature=abc', presignedUrlExpiresAt: '2026-10-09T00:00:00.000Z' } } };
      const ended = await order({ status: 'complete', expiresInMs: -1000, mode: 'test' });
      const notEnded = await order({ status: 'complete', mode: 'test' });
      const live = await order({ status: 'complete', expiresInMs: -1000 });
      const sourceUrl = 'https://files.example.com/photo.jpg?X-Amz-Signature=abc';
      await dataSource.getRepository(OrderFileEntity).save(
        [ended, notEnded, live].map((orderId) => ({ orderId, position: 0, role: 'input' as const, fileName: 'Jane Doe.jpg', sourceUrl, mediaKind: 'image' as const, status: 'uploaded' as const })),
      );
      await dataSource.getRepository(OrderEntity).update({ id: In([ended, notEnded, live]) }, { options });
      const urls = async (orderId: string) => (await dataSource.getRepository(OrderFileEntity).findBy({ orderId })).map((file) => [file.fileName, file.sourceUrl]);
      const event = (orderId: string) => ({ orderId, accountId });

      expect(await dataSource.transaction((manager) => forgetTestOrderUrls.execute(asTransaction(manager), event(ended)))).toBe(true);
      expect(await urls(ended)).toEqual([['Jane Doe.jpg', null]]);
      expect((await row(ended)).options).toEqual({ ...options, targets: { 'a.png': { presignedUrlExpiresAt: '2026-10-09T00:00:00.000Z' } } });
      expect((await row(ended)).status).toBe('complete');
      expect(await statusEvents(ended)).toEqual([]);
      // A redelivery changes nothing more.
      expect(await dataSource.transaction((manager) => forgetTestOrderUrls.execute(asTransaction(manager), event(ended)))).toBe(true);
      expect(await urls(ended)).toEqual([['Jane Doe.jpg', null]]);

      for (const kept of [notEnded, live]) {
        expect(await dataSource.transaction((manager) => forgetTestOrderUrls.execute(asTransaction(manager), event(kept)))).toBe(false);
        expect(await urls(kept)).toEqual([['Jane Doe.jpg', sourceUrl]]);
        expect((await row(kept)).options).toEqual(options);
      }
    });
  });

  describe('RetireV2OrdersUseCase', () => {
    it('does nothing before the retirement time', async () => {
      const pending = await order({ status: 'pending', apiVersion: 'v2' });
      expect(await retire.execute()).toBe(0);
      expect((await row(pending)).status).toBe('pending');
    });

    it('from the retirement time fails pending v2 orders with WATERMARK_V2_API_SUNSET and restores their credits', async () => {
      const before = await balance();
      const pendingV2 = await order({ status: 'pending', apiVersion: 'v2', credits: 3 });
      await dataSource.transaction((manager) => ledger.apply(asTransaction(manager), accountId, -3, `charge:${pendingV2}`, 'charge'));
      const processingV2 = await order({ status: 'inProgress', apiVersion: 'v2' });
      const pendingV3 = await order({ status: 'pending', apiVersion: 'v3' });
      expect(await balance()).toBe(before - 3);
      clock.set(V2_RETIREMENT_AT);
      let failed = 0;
      let batch: number;
      do {
        batch = await retire.execute();
        failed += batch;
      } while (batch > 0);
      expect(failed).toBe(2); // this one and the one of the previous test
      expect(await row(pendingV2)).toMatchObject({ status: 'failed', failureCode: 'WATERMARK_V2_API_SUNSET' });
      expect((await row(processingV2)).status).toBe('inProgress');
      expect((await row(pendingV3)).status).toBe('pending');
      expect(await balance()).toBe(before);
      expect(await retire.execute()).toBe(0);
    });
  });
});
