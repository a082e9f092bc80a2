// The stuck-order sweep against real PostgreSQL (orders' own migrations): orders inProgress without progress past
// the max age fail with PROCESSING_TIMEOUT, their credits come back once (ledger balanced), the failed event is in
// the outbox, two replicas sweeping at once never fail an order twice, and an order whose outputs keep completing
// (through the results consumer's use case) is progressing, not stuck.
import { randomUUID } from 'node:crypto';
import { ManualClock } from '@cp/clock';
import { EventSubjects, OrderFailedEvent } from '@cp/contracts';
import { TransactionRepository, asTransaction } from '@cp/database';
import { OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { OrdersConfig } from '../orders.config';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderEntity } from '../orders/order.entity';
import { OrdersRepository } from '../orders/orders.repository';
import { WatermarkEmbedOrderType } from '../order-types/watermark-embed/watermark-embed.order-type';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ApplyResultUseCase } from '../processing/apply-result.use-case';
import { OrderProcessingService } from '../processing/order-processing.service';
import { KeyModesService } from '../sandbox/key-modes.service';
import { SampleFiles } from '../sandbox/sample-files';
import { FailStuckOrdersUseCase } from './fail-stuck-orders.use-case';
import { InProgressOrdersMetrics } from './in-progress-orders.metrics';
import { InProgressOrdersRepository } from './in-progress-orders.repository';
import { register } from 'prom-client';
import { openOrdersTestDatabase } from '../__fixtures__/orders-test-database';

describe('FailStuckOrdersUseCase (real PostgreSQL)', () => {
  const schema = uniqueName('it_stuck');
  const HOUR = 3600_000;
  const clock = new ManualClock(new Date('2026-11-25T12:00:00.000Z'));
  const config = {
    stuckOrders: { maxAgeMs: 6 * HOUR, sweepIntervalMs: 60_000 },
    storage: { buckets: { inputs: 'cp-inputs', outputs: 'cp-outputs' } },
  } as OrdersConfig;
  const accountId = '601';
  let dataSource: DataSource;
  let ledger: CreditLedgerRepository;
  let sweeps: FailStuckOrdersUseCase[];

  /** An order charged `credits` (ledger entry included) whose last transition was `ageMs` ago, with `outputs` queued outputs. */
  const order = async (status: OrderEntity['status'], ageMs: number, credits = 2, outputs = 1): Promise<string> => {
    const changedAt = new Date(clock.nowMs() - ageMs);
    const saved = await dataSource.getRepository(OrderEntity).save({
      accountId,
      mode: 'live' as const,
      type: 'watermarkEmbed' as const,
      apiVersion: 'v3' as const,
      status,
      processingDelayed: false,
      creditsCharged: credits,
      packageKey: null,
      expiresAt: new Date(clock.nowMs() + 720 * HOUR),
      createdAt: changedAt,
    });
    // `updatedAt` is the database's on save; the sweep reads the last transition's time from it.
    await dataSource.getRepository(OrderEntity).update(saved.id, { updatedAt: changedAt });
    for (let index = 0; index < outputs; index += 1) {
      await dataSource.getRepository(OrderOutputEntity).save({
        fileId: `${saved.id}-${index + 1}`,
        orderId: saved.id,
        inputFileId: saved.id,
        inputPosition: 0,
        outputIndex: index,
        watermarkText: 't',
        status: 'queued' as const,
        mediaKind: 'image' as const,
        objectKey: null,
        failureCode: null,
      });
    }
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), accountId, -credits, `charge:${saved.id}`, 'charge'));
    return saved.id;
  };
  const row = (id: string) => dataSource.getRepository(OrderEntity).findOneByOrFail({ id });
  const balance = (): Promise<number> => ledger.balance(asTransaction(dataSource.manager), accountId);
  const failedEvents = async (): Promise<OrderFailedEvent[]> =>
    (await dataSource.getRepository(OutboxEventEntity).find({ where: { subject: EventSubjects.orderFailed }, order: { seq: 'ASC' } })).map(
      (event) => (event.envelope as { data: OrderFailedEvent }).data,
    );

  beforeAll(async () => {
    dataSource = await openOrdersTestDatabase(schema, 'it-stuck', 6);
    ledger = new CreditLedgerRepository();
    // Two replicas: each its own repository over the shared database.
    sweeps = [0, 1].map(
      () => new FailStuckOrdersUseCase(config, new TransactionRepository(dataSource), new OrdersRepository(dataSource, new OutboxWriter(clock), ledger), clock),
    );
    await dataSource.transaction((tx) => ledger.apply(asTransaction(tx), accountId, 1000, 'grant:1', 'test grant'));
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('fails stuck orders with PROCESSING_TIMEOUT and refunds them; leaves recent and other orders alone', async () => {
    const start = await balance();
    const stuck = await order('inProgress', 7 * HOUR, 3);
    const recent = await order('inProgress', 5 * HOUR);
    const pending = await order('pending', 10 * HOUR);
    expect(await balance()).toBe(start - 7);

    // The metrics an operator's alert reads before the sweep: two orders inProgress, the oldest unchanged for 7 h.
    const metrics = new InProgressOrdersMetrics(new TransactionRepository(dataSource), new InProgressOrdersRepository(), clock);
    metrics.onApplicationBootstrap();
    const scrape = async (): Promise<string> => (await register.metrics()).split('\n').filter((line) => line.startsWith('orders_in_progress')).join('\n');
    expect(await scrape()).toBe(`orders_in_progress 2\norders_in_progress_oldest_unchanged_age_seconds ${7 * 3600}`);

    expect(await sweeps[0].execute()).toBe(1);
    expect(await row(stuck)).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT', processingDelayed: false });
    expect((await dataSource.getRepository(OrderOutputEntity).findOneByOrFail({ orderId: stuck })).status).toBe('failed');
    expect((await row(recent)).status).toBe('inProgress');
    expect((await row(pending)).status).toBe('pending');
    expect(await balance()).toBe(start - 4);
    expect((await failedEvents()).filter((event) => event.orderId === stuck)).toEqual([expect.objectContaining({ errorCode: 'PROCESSING_TIMEOUT', accountId })]);
    expect(await sweeps[0].execute()).toBe(0);
    expect(await scrape()).toBe(`orders_in_progress 1\norders_in_progress_oldest_unchanged_age_seconds ${5 * 3600}`);
    metrics.onApplicationShutdown();
  });

  it('two replicas sweeping at once fail each stuck order exactly once; the ledger stays balanced', async () => {
    const start = await balance();
    const ids: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      ids.push(await order('inProgress', 8 * HOUR, 1));
    }
    expect(await balance()).toBe(start - 12);
    const counts = await Promise.all(sweeps.map((sweep) => sweep.execute(3)));
    let more = counts.reduce((sum, count) => sum + count, 0);
    let total = more;
    while (more > 0) {
      const next = await Promise.all(sweeps.map((sweep) => sweep.execute(3)));
      more = next.reduce((sum, count) => sum + count, 0);
      total += more;
    }
    expect(total).toBe(12);
    for (const id of ids) {
      expect((await row(id)).failureCode).toBe('PROCESSING_TIMEOUT');
    }
    expect(await balance()).toBe(start);
    const perOrder = (await failedEvents()).filter((event) => ids.includes(event.orderId)).map((event) => event.orderId);
    expect(perOrder.sort()).toEqual([...ids].sort());
    const restores = await dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM credit_ledger_entry WHERE reference = ANY($1::text[])`, [
      ids.map((id) => `restore:${id}`),
    ]);
    expect(restores).toEqual([{ n: 12 }]);
  });
  it("an order whose jobs wait their turn in the account's share is not stuck; the age counts from its job's send", async () => {
    // Per-account shares (docs/operations.md): the account's earlier jobs fill its share, this order's job waits in
    // the outbox. Waiting for the account's other work is not the order being stuck: its 6 h count from the send.
    const waiting = await order('inProgress', 7 * HOUR, 1);
    const sentLongAgo = await order('inProgress', 7 * HOUR, 1);
    const job = (orderId: string) => ({
      id: randomUUID(),
      subject: 'job.watermark.embed',
      envelope: {},
      shareKey: `job.watermark.embed:${accountId}`,
      shareOrder: orderId,
      shareUnit: `${orderId}-1`,
      shareLimit: 4,
    });
    const jobs = dataSource.getRepository(OutboxEventEntity);
    await jobs.insert([job(waiting), { ...job(sentLongAgo), publishedAt: new Date(clock.nowMs() - 6.5 * HOUR) }]);
    // The alert's figure follows the same rule: the waiting order is left out, the other counts from its job's send
    // (the first test's `recent` order, 5 h, is in progress too).
    const metrics = new InProgressOrdersMetrics(new TransactionRepository(dataSource), new InProgressOrdersRepository(), clock);
    metrics.onApplicationBootstrap();
    const oldest = async (): Promise<string | undefined> =>
      (await register.metrics()).split('\n').find((line) => line.startsWith('orders_in_progress_oldest_unchanged_age_seconds '));
    expect(await oldest()).toBe(`orders_in_progress_oldest_unchanged_age_seconds ${6.5 * 3600}`);
    metrics.onApplicationShutdown();
    expect(await sweeps[0].execute()).toBeGreaterThanOrEqual(1);
    expect((await row(waiting)).status).toBe('inProgress');
    expect(await row(sentLongAgo)).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT' });

    // Sent 5 h ago (its result not in yet): still within its 6 h. Then 6 h after the send without a result: stuck.
    await jobs.update({ shareOrder: waiting }, { publishedAt: new Date(clock.nowMs() - 5 * HOUR) });
    expect(await sweeps[1].execute()).toBe(0);
    expect((await row(waiting)).status).toBe('inProgress');
    await jobs.update({ shareOrder: waiting }, { publishedAt: new Date(clock.nowMs() - 6.5 * HOUR) });
    expect(await sweeps[1].execute()).toBe(1);
    expect(await row(waiting)).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT' });
  });

  it('an order whose outputs keep starting and completing is not stuck; the age counts from its last progress', async () => {
    const repository = new OrdersRepository(dataSource, new OutboxWriter(clock), ledger);
    const processing = new OrderProcessingService(config, {} as OrderTypeRegistry, {} as KeyModesService);
    const applyResult = new ApplyResultUseCase(repository, processing, clock);
    const embed = new WatermarkEmbedOrderType({} as SampleFiles);
    const handler = (durable: string) => {
      const found = embed.results.find((candidate) => candidate.durable === durable);
      if (!found) {
        throw new Error(`no handler ${durable}`);
      }
      return found;
    };
    const started = clock.now();
    // Both started 5 h ago with three outputs; the workers answer for one of them only, one output at a time.
    const progressing = await order('inProgress', 5 * HOUR, 1, 3);
    const silent = await order('inProgress', 5 * HOUR, 1, 3);
    const result = (durable: string, event: object) => dataSource.transaction((tx) => applyResult.execute(asTransaction(tx), handler(durable), event));
    try {
      await result('orders-output-processing', { orderId: progressing, outputFileId: `${progressing}-1` });
      clock.set(new Date(started.getTime() + 2 * HOUR));
      await result('orders-output-completed', { orderId: progressing, outputFileId: `${progressing}-1`, objectKey: 'out/1.png', size: 1 });
      await result('orders-output-processing', { orderId: progressing, outputFileId: `${progressing}-2` });
      expect(await row(progressing)).toMatchObject({ status: 'inProgress', updatedAt: clock.now() });

      // 7 h after the start: the silent order is stuck, the progressing one changed 0 h ago. (The count may include
      // an order of an earlier test that is stuck by now too.)
      expect(await sweeps[0].execute()).toBeGreaterThanOrEqual(1);
      expect(await row(silent)).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT' });
      expect((await row(progressing)).status).toBe('inProgress');

      // Its next output completes 5 h later: still progressing at 12 h after the start.
      clock.set(new Date(started.getTime() + 7 * HOUR));
      await result('orders-output-completed', { orderId: progressing, outputFileId: `${progressing}-2`, objectKey: 'out/2.png', size: 1 });
      clock.set(new Date(started.getTime() + 12 * HOUR));
      expect(await sweeps[1].execute()).toBe(0);
      expect((await row(progressing)).status).toBe('inProgress');

      // Then nothing for 6 h: stuck like any other.
      clock.set(new Date(started.getTime() + 14 * HOUR));
      expect(await sweeps[0].execute()).toBe(1);
      expect(await row(progressing)).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT' });
    } finally {
      clock.set(started);
    }
  });
});
