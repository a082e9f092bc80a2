// A failed order whose `failed` status event retention never got, end to end on the real infrastructure: retention's
// own PostgreSQL schema (its migrations), the reconciliation's request over real NATS (`orders.failed-orders`, through
// the services' RPC client and server; orders' answer comes from a list here, its statement is tested on orders'
// schema in failed-orders.repository.spec.ts), then the sweep deleting the order's objects on a real S3 server.
import { ManualClock } from '@cp/clock';
import { ExpireOrdersResult, FailedOrdersPage, FailedOrdersQuery, FailedOrderView, ObjectKeys, Rpcs } from '@cp/contracts';
import { asTransaction, openServiceDatabase, TransactionRepository } from '@cp/database';
import { createRpcServer, MESSAGING_ENTITIES, OutboxWriter, RpcClient, RpcClientModule, RpcHandler, RpcHandlers } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { startTestS3Server, TestS3Server, testInfra, testStorageConfig, uniqueName } from '@cp/testing';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { RETENTION_ENTITIES } from '../database/entities';
import { RETENTION_MIGRATIONS } from '../database/migrations';
import { ReconcileSettings, RetentionSettings } from '../retention.config';
import { OrderObjects } from '../sweep/order-objects.service';
import { OrdersExpiryPort } from '../sweep/orders-expiry.client';
import { RetentionEndEventsRepository } from '../sweep/retention-end-events.repository';
import { SweepExpiredOrdersUseCase } from '../sweep/sweep-expired-orders.use-case';
import { FailedOrderReconciliationRepository } from './failed-order-reconciliation.repository';
import { FailedOrdersClient } from './failed-orders.client';
import { OrderExpiryEntity } from './order-expiry.entity';
import { OrderExpiryRepository } from './order-expiry.repository';
import { ReconcileFailedOrdersUseCase } from './reconcile-failed-orders.use-case';

const HOUR = 3600_000;
const start = new Date('2026-11-10T12:00:00.000Z');

/** Orders' failed orders, as `orders.failed-orders` pages them (by failedAt, then id; after the cursor; up to the bound). */
const failedOrders: FailedOrderView[] = [];
const queries: FailedOrdersQuery[] = [];

@Controller()
@RpcHandlers()
class FailedOrdersController {
  @RpcHandler(Rpcs.ordersFailedOrders)
  async failed(query: FailedOrdersQuery): Promise<FailedOrdersPage> {
    queries.push(query);
    const key = (order: { failedAt: string; orderId: string }): string => `${order.failedAt}|${order.orderId.padStart(20, '0')}`;
    const after = query.after ? key(query.after) : '';
    const orders = [...failedOrders].sort((a, b) => key(a).localeCompare(key(b))).filter((order) => key(order) > after && order.failedAt <= query.failedUpTo);
    return { orders: orders.slice(0, query.limit) };
  }
}

@Module({ controllers: [FailedOrdersController] })
class FakeOrdersModule {}

/** Orders' expiry: never asked for a failed order's early deletion. */
class RecordingOrdersExpiry extends OrdersExpiryPort {
  readonly asked: string[][] = [];

  expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    this.asked.push([...orderIds]);
    return Promise.resolve({ expired: orderIds, skipped: [] });
  }
}

describe('a failed order whose failed event was missed has its objects deleted (real PostgreSQL, NATS and S3)', () => {
  const schema = uniqueName('it_retention_failed_reconcile');
  const clock = new ManualClock(start);
  const retention: RetentionSettings = { sweepIntervalMs: 1000, batchSize: 10, deleteConcurrency: 2, recheckMs: HOUR, leaseMs: 600_000, failedOrderGraceMs: 24 * HOUR };
  const reconcile: ReconcileSettings = { intervalMs: 1000, graceMs: 300_000, pageSize: 2, pauseMs: 0 };
  const accountId = '4242';
  const expiries = new OrderExpiryRepository();
  const ordersExpiry = new RecordingOrdersExpiry();
  let s3: TestS3Server;
  let storage: ObjectStorage;
  let dataSource: DataSource;
  let server: INestMicroservice;
  let closeClient: () => Promise<void>;
  let rpc: RpcClient;
  let sweep: SweepExpiredOrdersUseCase;

  /** A retention replica's reconciliation (each its own instance: a restart starts from the stored cursor). */
  const replica = (): ReconcileFailedOrdersUseCase =>
    new ReconcileFailedOrdersUseCase(new TransactionRepository(dataSource), { retention, reconcile }, expiries, new FailedOrderReconciliationRepository(), new FailedOrdersClient(rpc), clock);

  /** A whole pass: pages until one is not full; returns how many orders it scheduled. */
  const pass = async (useCase: ReconcileFailedOrdersUseCase): Promise<number> => {
    let reconciled = 0;
    let page;
    do {
      page = await useCase.execute();
      reconciled += page.reconciled;
    } while (page.more);
    return reconciled;
  };

  const drainSweep = async (): Promise<void> => {
    while ((await sweep.execute()) > 0) {
      // every due batch
    }
  };

  const objectsOf = async (orderId: string): Promise<number> => {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    const { inputs, outputs, reports } = storage.buckets;
    const keys = await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, prefix)));
    return keys.flat().length;
  };

  const store = async (orderId: string): Promise<void> => {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    await storage.put(storage.buckets.inputs, `${prefix}inputs/1/a.png`, Buffer.from('in'));
    await storage.put(storage.buckets.outputs, `${prefix}outputs/1-1/a-watermarked-1-1.png`, Buffer.from('out'));
  };

  const failed = (orderId: string, failedAt: Date, expiresAt: Date): FailedOrderView => ({
    orderId,
    accountId,
    mode: 'live',
    expiresAt: expiresAt.toISOString().replace('Z', '000Z'),
    failedAt: failedAt.toISOString().replace('Z', '000Z'),
  });

  const row = (orderId: string): Promise<OrderExpiryEntity | null> => dataSource.getRepository(OrderExpiryEntity).findOneBy({ orderId });

  beforeAll(async () => {
    s3 = await startTestS3Server();
    storage = new ObjectStorage(testStorageConfig(s3.endpoint));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...RETENTION_ENTITIES, ...MESSAGING_ENTITIES], migrations: RETENTION_MIGRATIONS, applicationName: 'it-failed-reconcile' });
    server = (await Test.createTestingModule({ imports: [FakeOrdersModule] }).compile()).createNestMicroservice({
      strategy: createRpcServer({ servers: [testInfra.natsUrl], queue: schema }),
    });
    await server.listen();
    const moduleRef = await Test.createTestingModule({ imports: [RpcClientModule.register(testInfra.natsUrl, schema, 5000)] }).compile();
    rpc = moduleRef.get(RpcClient);
    closeClient = () => moduleRef.close();
    sweep = new SweepExpiredOrdersUseCase(new TransactionRepository(dataSource), { retention }, expiries, ordersExpiry, new OrderObjects(storage), clock, new RetentionEndEventsRepository(new OutboxWriter(clock)));
  });

  afterAll(async () => {
    await closeClient();
    await server.close();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  it("schedules the missed failed orders' deletion, the sweep deletes their objects when the grace ends, and a second pass or replica adds nothing", async () => {
    const expiresAt = new Date(start.getTime() + 20 * 24 * HOUR);
    const tx = asTransaction(dataSource.manager);
    // Failed two days ago; no status event ever reached retention: no row at all.
    failedOrders.push(failed('3001', new Date(start.getTime() - 48 * HOUR), expiresAt));
    // Failed two days ago too; its creation event came, its failed event did not.
    failedOrders.push(failed('3002', new Date(start.getTime() - 47 * HOUR), expiresAt));
    await expiries.schedule(tx, { orderId: '3002', accountId, expiresAt, mode: 'live' });
    // Its failed event came (handled late): its own purge time stays.
    failedOrders.push(failed('3003', new Date(start.getTime() - 46 * HOUR), expiresAt));
    await expiries.scheduleFailedPurge(tx, { orderId: '3003', accountId, expiresAt, mode: 'live' }, new Date(start.getTime() + 10 * HOUR));
    // Failed an hour ago, its event missed: deleted when its grace ends, not before.
    failedOrders.push(failed('3004', new Date(start.getTime() - HOUR), expiresAt));
    // Failed a minute ago: not read yet (its transaction may not have committed when a page is read).
    failedOrders.push(failed('3005', new Date(start.getTime() - 60_000), expiresAt));
    // Not failed: orders does not list it; its schedule is left alone.
    await expiries.schedule(tx, { orderId: '3006', accountId, expiresAt, mode: 'live' });
    for (const orderId of ['3001', '3002', '3003', '3004', '3005', '3006']) {
      await store(orderId);
    }

    // Before: the sweep has nothing due; every order keeps its objects.
    await drainSweep();
    expect(await objectsOf('3001')).toBe(2);

    expect(await pass(replica())).toBe(3);
    expect(queries.length).toBe(3);
    expect(queries[1].after).toEqual({ failedAt: failedOrders[1].failedAt, orderId: '3002' });
    expect(await row('3001')).toMatchObject({ phase: 'scheduled', expiresAt, failedPurgeAt: new Date(start.getTime() - 24 * HOUR), nextCheckAt: new Date(start.getTime() - 24 * HOUR) });
    expect(await row('3002')).toMatchObject({ phase: 'scheduled', failedPurgeAt: new Date(start.getTime() - 23 * HOUR), nextCheckAt: new Date(start.getTime() - 23 * HOUR) });
    expect((await row('3003'))?.failedPurgeAt).toEqual(new Date(start.getTime() + 10 * HOUR));
    expect((await row('3004'))?.failedPurgeAt).toEqual(new Date(start.getTime() + 23 * HOUR));
    expect(await row('3005')).toBeNull();

    await drainSweep();
    for (const orderId of ['3001', '3002']) {
      expect({ orderId, objects: await objectsOf(orderId) }).toEqual({ orderId, objects: 0 });
      expect(await row(orderId)).toMatchObject({ phase: 'scheduled', failedPurgedAt: start, nextCheckAt: expiresAt, objectsDeleted: 2 });
    }
    for (const orderId of ['3003', '3004', '3005', '3006']) {
      expect({ orderId, objects: await objectsOf(orderId) }).toEqual({ orderId, objects: 2 });
    }

    // A restarted replica goes on from the stored cursor: nothing read twice, nothing scheduled twice.
    queries.length = 0;
    expect(await pass(replica())).toBe(0);
    expect(queries.map((query) => query.after?.orderId)).toEqual(['3004']);

    // A day on: every grace ended, the late order was read on the way; only the never-failed order keeps its objects.
    clock.advance(24 * HOUR);
    expect(await pass(replica())).toBe(1);
    await drainSweep();
    for (const orderId of ['3001', '3002', '3003', '3004', '3005']) {
      expect({ orderId, objects: await objectsOf(orderId) }).toEqual({ orderId, objects: 0 });
    }
    expect(await objectsOf('3006')).toBe(2);
    expect(ordersExpiry.asked).toEqual([]);
    const cursor = await dataSource.query<Array<{ after_order_id: string; rows_reconciled: number; leased_until: Date | null }>>(
      `SELECT after_order_id::text AS after_order_id, rows_reconciled::int AS rows_reconciled, leased_until FROM failed_order_reconciliation`,
    );
    expect(cursor).toEqual([{ after_order_id: '3005', rows_reconciled: 4, leased_until: null }]);
  });
});
