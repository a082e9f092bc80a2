// The order aggregate's persistence against real PostgreSQL (the orders service's own migrations): what a
// transition changed is written with its events and credit movements in one transaction, and the locking
// reads skip rows another replica holds.
import { ManualClock } from '@cp/clock';
import { EmbedJob, EventSubjects, Jobs, message, OutboxMessage } from '@cp/contracts';
import { openServiceDatabase, serviceDataSourceOptions, asTransaction, Transaction } from '@cp/database';
import { MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { ORDERS_ENTITIES } from '../database/entities';
import { ORDERS_MIGRATIONS } from '../database/migrations';
import { Order } from '../domain/order';
import { OrderReportEntity } from './order-report.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity } from './order.entity';
import { OrderDraft, OrdersRepository } from './orders.repository';

describe('OrdersRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders_repo');
  const clock = new ManualClock(new Date('2026-11-01T12:00:00.000Z'));
  const accountId = '701';
  let dataSource: DataSource;
  let ledger: CreditLedgerRepository;
  let repository: OrdersRepository;

  const draft = (createdAt: Date, texts = ['a', 'b'], mode: 'live' | 'test' = 'live'): OrderDraft => ({
    order: {
      accountId,
      mode,
      type: 'watermarkEmbed',
      apiVersion: 'v3',
      creditsCharged: mode === 'live' ? texts.length : 0,
      options: null,
      expiresAt: new Date(createdAt.getTime() + 720 * 3600_000),
      createdAt,
    },
    files: [{ role: 'input', fileName: 'photo.png', sourceUrl: null, mediaKind: 'image' }],
    outputs: (files) =>
      texts.map((text, index) => ({
        fileId: `${files[0].id}-${index + 1}`,
        inputFileId: files[0].id,
        inputPosition: 0,
        outputIndex: index,
        watermarkText: text,
        status: 'pending',
        mediaKind: 'image',
        objectKey: null,
        failureCode: null,
      })),
  });

  /** Inserts and announces an order the way creation does (charge, status event), committed. */
  const create = (createdAt = clock.now(), texts?: string[]): Promise<Order> =>
    dataSource.transaction(async (tx) => {
      const order = await repository.newOrder(draft(createdAt, texts));
      await repository.insert(asTransaction(tx), order, order.created('order charge'));
      return order;
    });
  const balance = (): Promise<number> => ledger.balance(asTransaction(dataSource.manager), accountId);
  const outboxSubjects = async (since: number): Promise<string[]> =>
    (await dataSource.manager.find(OutboxEventEntity, { order: { seq: 'ASC' } })).slice(since).map((row) => row.subject);
  const outboxCount = (): Promise<number> => dataSource.manager.count(OutboxEventEntity);

  beforeAll(async () => {
    const options = { url: testInfra.databaseUrl, schema, entities: [...ORDERS_ENTITIES, ...MESSAGING_ENTITIES], migrations: ORDERS_MIGRATIONS, applicationName: 'it-repo' };
    await (await openServiceDatabase(options)).destroy();
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, poolSize: 4 })).initialize();
    ledger = new CreditLedgerRepository();
    repository = new OrdersRepository(dataSource, new OutboxWriter(clock), ledger);
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), accountId, 100, 'grant:1', 'test grant'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('round-trips an order with its files and outputs, and only to its owner in its key mode', async () => {
    const before = await balance();
    const order = await create(clock.now(), ['first', 'second', 'third']);
    expect(await balance()).toBe(before - 3);
    const loaded = await repository.findOwned(order.id, accountId, 'live');
    expect(loaded?.state).toMatchObject({ id: order.id, status: 'pending', creditsCharged: 3, type: 'watermarkEmbed' });
    expect(loaded?.files.map((file) => [file.position, file.fileName, file.status])).toEqual([[0, 'photo.png', 'awaiting_upload']]);
    expect(loaded?.outputs.map((output) => output.watermarkText)).toEqual(['first', 'second', 'third']);
    expect(await repository.findOwned(order.id, '702', 'live')).toBeNull();
    expect(await repository.findOwned(order.id, accountId, 'test')).toBeNull();
  });

  it('writes a new order as its first transitions left it, in one statement: row, children, charge and events in order', async () => {
    const since = await outboxCount();
    const before = await balance();
    const built = { ...draft(clock.now(), ['p', 'q']), files: [1, 2].map((n) => ({ role: 'input' as const, fileName: `f${n}.png`, sourceUrl: `https://example.test/${n}`, mediaKind: 'image' as const })) };
    const order = await dataSource.transaction(async (tx) => {
      const created = await repository.newOrder({ ...built, order: { ...built.order, options: { deliver: { nested: [1, 'two', null] } } } });
      await repository.insert(asTransaction(tx), created, [...created.created('order charge'), ...created.startBeforeFiles(clock.now())]);
      return created;
    });
    expect(Number(order.files[1].id)).toBeGreaterThan(Number(order.files[0].id));
    const loaded = await repository.findOwned(order.id, accountId, 'live');
    expect(loaded?.state).toEqual({ ...order.state });
    expect(loaded?.state).toMatchObject({ status: 'inProgress', options: { deliver: { nested: [1, 'two', null] } } });
    expect(loaded?.files).toEqual(order.files.map((file) => ({ ...file, orderId: order.id })));
    expect(loaded?.outputs).toEqual(order.outputs.map((output) => ({ ...output, orderId: order.id })));
    expect(await balance()).toBe(before - 2);
    expect(await outboxSubjects(since)).toEqual([EventSubjects.orderStatusChanged, EventSubjects.orderStatusChanged]);
  });

  it('writes nothing of a new order whose charge the balance refuses (the statement and its transaction roll back)', async () => {
    const poor = '704';
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), poor, 1, 'grant:poor', 'test grant'));
    const since = await outboxCount();
    let orderId = '';
    await expect(
      dataSource.transaction(async (tx) => {
        const order = await repository.newOrder({ ...draft(clock.now(), ['1', '2', '3']), order: { ...draft(clock.now()).order, accountId: poor, creditsCharged: 3 } });
        orderId = order.id;
        await repository.insert(asTransaction(tx), order, order.created('order charge'));
      }),
    ).rejects.toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED' });
    expect(await ledger.balance(asTransaction(dataSource.manager), poor)).toBe(1);
    expect(await dataSource.manager.countBy(OrderEntity, { id: orderId })).toBe(0);
    expect(await dataSource.manager.countBy(OrderFileEntity, { orderId })).toBe(0);
    expect(await outboxCount()).toBe(since);
    // A credit to an account without a balance opens it; a reference is applied once.
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), '705', 4, 'grant:new', 'test grant'));
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), '705', 4, 'grant:new', 'test grant'));
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), '705', -3, 'charge:x', 'charge'));
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), '705', -3, 'charge:x', 'charge'));
    expect(await ledger.balance(asTransaction(dataSource.manager), '705')).toBe(1);
  });

  it('reads many orders in one statement, each only for its own owner and mode, in the order asked', async () => {
    const first = await create(clock.now(), ['one']);
    const second = await create(clock.now(), ['two', 'three']);
    const found = await repository.findOwnedMany([
      { orderId: second.id, accountId, mode: 'live' },
      { orderId: first.id, accountId: '702', mode: 'live' },
      { orderId: '987654321', accountId, mode: 'live' },
      { orderId: first.id, accountId, mode: 'test' },
      { orderId: first.id, accountId, mode: 'live' },
      { orderId: second.id, accountId, mode: 'live' },
    ]);
    expect(found.map((order) => order?.id ?? null)).toEqual([second.id, null, null, null, first.id, second.id]);
    expect(found[0]?.outputs.map((output) => output.watermarkText)).toEqual(['two', 'three']);
    expect(found[4]?.outputs.map((output) => output.watermarkText)).toEqual(['one']);
    // Two reads of one order are two aggregates: a transition on one never changes the other.
    expect(found[0]).not.toBe(found[5]);
  });

  it('reads an order in one statement exactly as TypeORM reads each table (types, nulls, JSON, children in order)', async () => {
    const order = await create(clock.now(), ['z-last', 'a-first', 'middle']);
    await dataSource.query(`UPDATE "${schema}"."order" SET type_result = $2, completed_at = $3 WHERE id = $1`, [
      order.id,
      JSON.stringify({ found: true, nested: [1, 'two', { deep: null }] }),
      new Date('2026-11-01T12:00:01.234Z'),
    ]);
    await dataSource.manager.update(OrderOutputEntity, `${order.files[0].id}-2`, { objectKey: 'k/2.png', status: 'completed' });
    for (const locale of ['ko-KR', 'en-US']) {
      await dataSource.transaction((tx) =>
        repository.recordReportStatus(asTransaction(tx), { orderId: order.id, locale, status: 'completed', changedAt: '2026-11-01T12:00:02.500Z' }),
      );
    }
    const loaded = await repository.findOwned(order.id, accountId, 'live');
    const manager = dataSource.manager;
    // The row's traceparent (issue 33) is tracing's, not part of the order's state.
    expect(loaded?.state).toEqual({ ...(await manager.findOneByOrFail(OrderEntity, { id: order.id })), traceparent: undefined });
    expect(loaded?.state.completedAt).toBeInstanceOf(Date);
    expect(loaded?.files).toEqual(await manager.find(OrderFileEntity, { where: { orderId: order.id }, order: { position: 'ASC' } }));
    expect(loaded?.outputs).toEqual(await manager.find(OrderOutputEntity, { where: { orderId: order.id }, order: { inputPosition: 'ASC', outputIndex: 'ASC' } }));
    expect(loaded?.outputs.map((output) => output.watermarkText)).toEqual(['z-last', 'a-first', 'middle']);
    expect(loaded?.reports).toEqual(await manager.find(OrderReportEntity, { where: { orderId: order.id }, order: { locale: 'ASC' } }));
    expect(loaded?.reports.map((report) => report.locale)).toEqual(['en-US', 'ko-KR']);
    const locked = await dataSource.transaction((tx) => repository.lock(asTransaction(tx), order.id));
    expect(locked?.outputs).toEqual(loaded?.outputs);
    expect(locked?.reports).toEqual(loaded?.reports);
  });

  it('saves a transition with its events and restores the credits of a failed order exactly once', async () => {
    const order = await create();
    const afterCharge = await balance();
    const seen = await outboxCount();
    await dataSource.transaction(async (tx) => {
      const locked = await repository.lock(asTransaction(tx), order.id);
      if (!locked) {
        throw new Error('order vanished');
      }
      locked.fileUploaded(locked.files[0].id, 1234, clock.now());
      await repository.save(asTransaction(tx), locked, locked.startProcessing(clock.now()));
    });
    const started = await repository.findOwned(order.id, accountId, 'live');
    expect(started?.state.status).toBe('inProgress');
    expect(started?.files[0]).toMatchObject({ status: 'uploaded', size: '1234' });
    expect(started?.outputs.every((output) => output.status === 'queued')).toBe(true);
    expect(await outboxSubjects(seen)).toEqual([EventSubjects.orderStatusChanged]);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      // The second failure is a no-op: the aggregate refuses it, nothing more is refunded.
      await dataSource.transaction(async (tx) => {
        const locked = await repository.lock(asTransaction(tx), order.id);
        if (!locked) {
          throw new Error('order vanished');
        }
        await repository.save(asTransaction(tx), locked, locked.fail('WATERMARK_EMBED_FAILED', clock.now()));
      });
    }
    const failed = await repository.findOwned(order.id, accountId, 'live');
    expect(failed?.state).toMatchObject({ status: 'failed', failureCode: 'WATERMARK_EMBED_FAILED' });
    expect(failed?.outputs.every((output) => output.status === 'failed')).toBe(true);
    expect(await balance()).toBe(afterCharge + 2);
    expect(await outboxSubjects(seen + 1)).toEqual([EventSubjects.orderFailed, EventSubjects.orderStatusChanged]);
  });

  it("frees a job held to the account's share when its result comes, and all the order's when a save ends it", async () => {
    const order = await create();
    const job = (unit: string): OutboxMessage => ({
      ...message(Jobs.watermarkEmbed, { orderId: order.id, outputFileId: unit } as EmbedJob),
      share: { key: `job.watermark.embed:${accountId}`, order: order.id, unit, limit: 1 },
    });
    const inTx = (work: (tx: Transaction, locked: Order) => Promise<void>) =>
      dataSource.transaction(async (manager) => {
        const locked = await repository.lock(asTransaction(manager), order.id);
        if (!locked) {
          throw new Error('order vanished');
        }
        await work(asTransaction(manager), locked);
      });
    await inTx(async (tx, locked) => {
      locked.fileUploaded(locked.files[0].id, 1, clock.now());
      await repository.save(tx, locked, [...locked.startProcessing(clock.now()), job(`${order.id}-1`), job(`${order.id}-2`), job(`${order.id}-3`)]);
    });
    const shares = async () =>
      (
        await dataSource.getRepository(OutboxEventEntity).find({ where: { shareOrder: order.id }, order: { seq: 'ASC' } })
      ).map((row) => [row.shareUnit, row.shareLimit, row.shareReleasedAt !== null]);
    expect(await shares()).toEqual([
      [`${order.id}-1`, 1, false],
      [`${order.id}-2`, 1, false],
      [`${order.id}-3`, 1, false],
    ]);
    await inTx((tx) => repository.releaseJobs(tx, order.id, [`${order.id}-1`]));
    expect((await shares()).map(([, , released]) => released)).toEqual([true, false, false]);
    // A save that does not end the order frees nothing; the one that fails it frees the rest.
    await inTx((tx, locked) => repository.save(tx, locked, locked.processingDelayed(clock.now())));
    expect((await shares()).map(([, , released]) => released)).toEqual([true, false, false]);
    await inTx((tx, locked) => repository.save(tx, locked, locked.fail('WATERMARK_EMBED_FAILED', clock.now())));
    expect((await shares()).map(([, , released]) => released)).toEqual([true, true, true]);
  });

  it('rolls the rows, the ledger and the outbox back together when the transaction fails', async () => {
    const order = await create();
    const [credits, events] = [await balance(), await outboxCount()];
    await expect(
      dataSource.transaction(async (tx) => {
        const locked = await repository.lock(asTransaction(tx), order.id);
        await repository.save(asTransaction(tx), locked as Order, (locked as Order).fail('ORDER_TIMEOUT', clock.now()));
        throw new Error('crash after the save');
      }),
    ).rejects.toThrow('crash after the save');
    expect((await repository.findOwned(order.id, accountId, 'live'))?.state.status).toBe('pending');
    expect([await balance(), await outboxCount()]).toEqual([credits, events]);
  });

  it('hands each pending order to one sweeper: rows another transaction holds are skipped', async () => {
    const old = new Date(clock.now().getTime() - 48 * 3600_000);
    const first = await create(old);
    const second = await create(new Date(old.getTime() + 1000));
    const deadline = new Date(old.getTime() + 3600_000);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimedByFirst: string[] = [];
    const firstSweeper = dataSource.transaction(async (tx) => {
      claimedByFirst = (await repository.lockPendingCreatedBefore(asTransaction(tx), deadline, 1)).map((order) => order.id);
      await held;
    });
    while (claimedByFirst.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const claimedBySecond = await dataSource.transaction(async (tx) => (await repository.lockPendingCreatedBefore(asTransaction(tx), deadline, 10)).map((order) => order.id));
    release();
    await firstSweeper;
    expect(claimedByFirst).toEqual([first.id]);
    expect(claimedBySecond).toEqual([second.id]);
  });

  it('reads the orders waiting for their files by creation time: pending ones, and anti-AI ones started at once', async () => {
    // A window of its own, after every other test's orders.
    const at = (seconds: number) => new Date(clock.now().getTime() + 40 * 24 * 3600_000 + seconds * 1000);
    const insertAndThen = (createdAt: Date, type: 'watermarkEmbed' | 'antiAi', then: (order: Order) => OutboxMessage[]): Promise<Order> =>
      dataSource.transaction(async (tx) => {
        const base = draft(createdAt, ['a']);
        const order = await repository.newOrder({
          ...base,
          order: { ...base.order, type },
          files: [{ role: 'input', fileName: 'photo.png', sourceUrl: type === 'antiAi' ? 'https://images.example.com/photo.png' : null, mediaKind: 'image' }],
        });
        await repository.insert(asTransaction(tx), order, order.created('order charge'));
        await repository.save(asTransaction(tx), order, then(order));
        return order;
      });
    const pending = await insertAndThen(at(1), 'watermarkEmbed', () => []);
    const startedAtOnce = await insertAndThen(at(2), 'antiAi', (order) => order.startBeforeFiles(at(2)));
    const fetched = await insertAndThen(at(3), 'antiAi', (order) => [
      ...order.startBeforeFiles(at(3)),
      ...order.fileUploaded(order.files[0].id, 10, at(3)),
      ...order.startProcessing(at(3)),
    ]);
    const started = await insertAndThen(at(4), 'watermarkEmbed', (order) => [...order.fileUploaded(order.files[0].id, 10, at(4)), ...order.startProcessing(at(4))]);
    expect([pending, startedAtOnce, fetched, started].map((order) => order.status)).toEqual(['pending', 'inProgress', 'inProgress', 'inProgress']);

    const after = { createdAt: at(0).toISOString(), id: '0' };
    const read = await repository.waitingCreatedBetween(after, at(10), 10);
    // Orders in progress with all their files in (started at once and fetched, or started normally) are left out.
    expect(read.map((order) => [order.id, order.awaitingFileId])).toEqual([
      [pending.id, pending.files[0].id],
      [startedAtOnce.id, startedAtOnce.files[0].id],
    ]);
    // The keyset goes on after its cursor; the limit holds over both kinds; `until` bounds the range.
    expect((await repository.waitingCreatedBetween(read[0].cursor, at(10), 10)).map((order) => order.id)).toEqual([startedAtOnce.id]);
    expect((await repository.waitingCreatedBetween(after, at(10), 1)).map((order) => order.id)).toEqual([pending.id]);
    expect((await repository.waitingCreatedBetween(after, at(1), 10)).map((order) => order.id)).toEqual([pending.id]);
  });

  it('keeps the newest report status whatever order the announcements arrive in', async () => {
    const order = await create();
    const record = (status: string, changedAt: string) =>
      dataSource.transaction((tx) => repository.recordReportStatus(asTransaction(tx), { orderId: order.id, locale: 'en-US', status, changedAt }));
    await record('completed', '2026-11-01T12:00:02.000Z');
    await record('processing', '2026-11-01T12:00:01.000Z');
    const reports = (await repository.findOwned(order.id, accountId, 'live'))?.reports ?? [];
    expect(reports.map((report) => [report.locale, report.status])).toEqual([['en-US', 'completed']]);
  });

  it('counts orders per UTC day for the usage chart', async () => {
    const other = '703';
    const at = (iso: string) =>
      dataSource.transaction(async (tx) => {
        const order = await repository.newOrder({ ...draft(new Date(iso)), order: { ...draft(new Date(iso)).order, accountId: other, creditsCharged: 0 } });
        await repository.insert(asTransaction(tx), order, []);
      });
    await at('2026-10-01T23:59:59.000Z');
    await at('2026-10-02T00:00:00.000Z');
    await at('2026-10-02T12:00:00.000Z');
    const counts = await repository.countCreatedPerDay(other, 'live', new Date('2026-10-01T00:00:00.000Z'), new Date('2026-10-03T00:00:00.000Z'));
    expect(Object.fromEntries(counts)).toEqual({ '2026-10-01': 1, '2026-10-02': 2 });
  });
});
