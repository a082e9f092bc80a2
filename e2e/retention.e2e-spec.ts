// Retention (issue 9): at `expiresAt` the order's objects are deleted and the order becomes `expired`;
// the sweep survives SIGKILL mid-way. The clock is moved forward; the retention service is restarted with
// a short sweep interval and small batches for this suite.
import { StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { ObjectKeys, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { stackDir } from '@cp/stack';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, setClockOffset, stack, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, embedBody, getOrder, uploadFiles, waitForOrder } from './support/orders';

const DAY_MS = 24 * 3600_000;
const FAST_RETENTION = {
  RETENTION_SWEEP_INTERVAL_MS: '500',
  RETENTION_BATCH_SIZE: '25',
  RETENTION_DELETE_CONCURRENCY: '4',
  RETENTION_RECONCILE_INTERVAL_MS: '500',
  RETENTION_RECONCILE_GRACE_SECONDS: '0',
  RETENTION_RECONCILE_PAUSE_MS: '0',
};

async function restartRetention(extraEnv: Record<string, string>, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const processes = stack();
  processes.state.layout.extraEnv = { ...(layout.extraEnv ?? {}), ...extraEnv };
  await processes.stop('retention', signal);
  await processes.startService('retention');
}

describe('retention', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let retention: DataSource;
  let account: TestAccount;
  const storage = new ObjectStorage(
    toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x', S3_ENDPOINT: `http://127.0.0.1:${layout.s3Port}` })),
  );

  const objectsUnder = async (accountId: string, orderId: string): Promise<string[]> => {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    const { inputs, outputs, reports } = storage.buckets;
    return (await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, prefix)))).flat();
  };

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    retention = await openSchema('retention');
    account = await createAccount(gateway, 'enterprise', 50);
    await restartRetention(FAST_RETENTION);
  });

  afterAll(async () => {
    setClockOffset(0);
    await restartRetention({});
    await Promise.all([gateway.destroy(), orders.destroy(), retention.destroy()]);
  });

  describe('an order whose status events retention never got (the stream dropped them)', () => {
    it('is scheduled by the reconciliation with orders once its retention ends, then expired and its objects deleted', async () => {
      // An order row written straight into orders' table: no status event is ever published for it.
      const own = await createAccount(gateway, 'enterprise', 0);
      const [{ id }] = await orders.query<Array<{ id: string }>>(
        `INSERT INTO "order" (account_id, mode, type, api_version, status, expires_at, created_at, package_key)
         VALUES ($1, 'live', 'watermarkEmbed', 'v3', 'complete', $2, now(), NULL) RETURNING id::text AS id`,
        [own.accountId, new Date(Date.now() + 3600_000)],
      );
      await storage.put(storage.buckets.outputs, ObjectKeys.output(own.accountId, id, '1-1', 'a.png'), Buffer.from('out'));
      const schedule = () => retention.query<Array<{ phase: string }>>('SELECT phase FROM order_expiry WHERE order_id = $1', [id]);
      expect(await schedule()).toEqual([]);

      setClockOffset(2 * 3600_000);
      await eventually(schedule, (rows) => rows.length === 1, 30_000);
      await eventually(() => objectsUnder(own.accountId, id), (keys) => keys.length === 0, 30_000);
      const [order] = await orders.query<Array<{ status: string }>>('SELECT status FROM "order" WHERE id = $1', [id]);
      expect(order.status).toBe('expired');
      const [cursor] = await retention.query<Array<{ reconciled: number }>>('SELECT rows_reconciled::int AS reconciled FROM schedule_reconciliation');
      expect(cursor.reconciled).toBeGreaterThanOrEqual(1);
      setClockOffset(0);
    });

    it("a failed order whose failed event never came loses its objects a grace period after its failure, through the reconciliation of failed orders", async () => {
      setClockOffset(0);
      const own = await createAccount(gateway, 'enterprise', 0);
      const [before] = await retention.query<Array<{ after: Date | null; reconciled: number }>>(
        'SELECT after_failed_at AS after, rows_reconciled::int AS reconciled FROM failed_order_reconciliation',
      );
      // Not behind the walk's cursor, wherever another suite's clock moved it: orders sets failedAt once, when it fails.
      const failedAt = new Date(Math.max(Date.now(), (before.after?.getTime() ?? 0) + 1));
      // A failed order row written straight into orders' table: no status event is ever published for it.
      const [{ id }] = await orders.query<Array<{ id: string }>>(
        `INSERT INTO "order" (account_id, mode, type, api_version, status, failure_code, expires_at, failed_at, created_at, package_key)
         VALUES ($1, 'live', 'watermarkEmbed', 'v3', 'failed', 'ORDER_TIMEOUT', $2, $3, now(), NULL) RETURNING id::text AS id`,
        [own.accountId, new Date(failedAt.getTime() + 30 * DAY_MS), failedAt],
      );
      await storage.put(storage.buckets.outputs, ObjectKeys.output(own.accountId, id, '1-1', 'a.png'), Buffer.from('out'));
      const row = () =>
        retention.query<Array<{ phase: string; failed_purge_at: Date | null; failed_purged_at: Date | null }>>(
          'SELECT phase, failed_purge_at, failed_purged_at FROM order_expiry WHERE order_id = $1',
          [id],
        );
      expect(await row()).toEqual([]);
      const at = (sinceFailure: number): void => setClockOffset(failedAt.getTime() + sinceFailure - Date.now());

      // An hour after the failure: read, its deletion planned at failedAt + the grace (24 h), its objects kept.
      at(3600_000);
      const [planned] = await eventually(row, (rows) => rows.length === 1);
      expect(planned).toEqual({ phase: 'scheduled', failed_purge_at: new Date(failedAt.getTime() + DAY_MS), failed_purged_at: null });
      expect(await objectsUnder(own.accountId, id)).toHaveLength(1);

      at(DAY_MS + 60_000);
      await eventually(() => objectsUnder(own.accountId, id), (keys) => keys.length === 0, 30_000);
      const [purged] = await eventually(row, (rows) => rows[0]?.failed_purged_at !== null);
      expect(purged.phase).toBe('scheduled');
      const [order] = await orders.query<Array<{ status: string }>>('SELECT status FROM "order" WHERE id = $1', [id]);
      expect(order.status).toBe('failed');
      const [after] = await retention.query<Array<{ reconciled: number }>>('SELECT rows_reconciled::int AS reconciled FROM failed_order_reconciliation');
      expect(after.reconciled).toBeGreaterThan(before.reconciled);
      setClockOffset(0);
    });
  });

  describe('an order whose retention period ends', () => {
    let completed: WatermarkOrderView;
    let pending: WatermarkOrderView;

    beforeAll(async () => {
      const created = (await createEmbed(account.liveKey, embedBody([{ fileName: 'coffee.png', texts: ['keep 30 days', 'second'] }]))).body.data;
      expect(await uploadFiles(created, [corpusFile('photos/coffee.png')])).toEqual([200]);
      completed = await waitForOrder(account.liveKey, created.orderId);
      expect(completed.status).toBe('complete');
      pending = (await createEmbed(account.liveKey, embedBody([{ fileName: 'never.png', texts: ['x'] }]))).body.data;
    });

    it('gets expiresAt = creation + 30 days, and is scheduled by the retention service', async () => {
      const rows = await orders.query<Array<{ created_at: Date; expires_at: Date }>>('SELECT created_at, expires_at FROM "order" WHERE id = $1', [completed.orderId]);
      expect(rows[0].expires_at.getTime() - rows[0].created_at.getTime()).toBe(30 * DAY_MS);
      expect(completed.expiresAt).toBe(rows[0].expires_at.toISOString());
      const scheduled = await eventually(
        () => retention.query<Array<{ phase: string; expires_at: Date }>>('SELECT phase, expires_at FROM order_expiry WHERE order_id = $1', [completed.orderId]),
        (found) => found.length === 1,
      );
      expect(scheduled[0]).toEqual({ phase: 'scheduled', expires_at: rows[0].expires_at });
      // input, two outputs, the ZIP
      expect(await objectsUnder(account.accountId, completed.orderId)).toHaveLength(4);
    });

    it('one day before: nothing happens', async () => {
      setClockOffset(29 * DAY_MS);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect((await getOrder(account.liveKey, completed.orderId)).status).toBe('complete');
      expect(await objectsUnder(account.accountId, completed.orderId)).toHaveLength(4);
    });

    it('at expiresAt: objects deleted, order expired and still readable, downloads ORDER_EXPIRED, no upload URL', async () => {
      setClockOffset(30 * DAY_MS + 60_000);
      const expired = await waitForOrder(account.liveKey, completed.orderId, ['expired'], 30_000);
      expect(expired.outputs).toHaveLength(2);
      await eventually(() => objectsUnder(account.accountId, completed.orderId), (keys) => keys.length === 0);
      for (const path of [`/api/v3/orders/${completed.orderId}/download`, `/api/v3/orders/${completed.orderId}/files/${completed.outputs[0].fileId}/download`, `/api/v2/orders/${completed.orderId}/download-urls`]) {
        const response = await api(path, { key: account.liveKey });
        expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 400, body: { code: 'ORDER_EXPIRED' } });
      }
      const rows = await orders.query<Array<{ package_key: string | null }>>('SELECT package_key FROM "order" WHERE id = $1', [completed.orderId]);
      expect(rows[0].package_key).toBeNull();
      const outputs = await orders.query<Array<{ object_key: string | null }>>('SELECT object_key FROM order_output WHERE order_id = $1', [completed.orderId]);
      expect(outputs.map((output) => output.object_key)).toEqual([null, null]);
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${completed.orderId}`, { key: account.liveKey });
      expect(detail.body.data).toMatchObject({ status: 'expired', thumbnailImageUrl: null });

      const never = await waitForOrder(account.liveKey, pending.orderId, ['expired'], 30_000);
      expect(never.files[0].uploadUrl).toBeNull();
    });

    it("after expiry: the upload slots are gone, the issuance naming the recipient stays, and no service logged the texts or the file's name", async () => {
      const uploads = await openSchema('uploads');
      const watermark = await openSchema('watermark');
      try {
        await eventually(
          () => uploads.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM upload_slot WHERE order_id = $1', [completed.orderId]),
          (rows) => rows[0].n === 0,
        );
        const issued = await watermark.query<Array<{ watermark_text: string }>>('SELECT watermark_text FROM issuance WHERE order_id = $1 ORDER BY watermark_text', [completed.orderId]);
        expect(issued.map((row) => row.watermark_text)).toEqual(['keep 30 days', 'second']);
      } finally {
        await Promise.all([uploads.destroy(), watermark.destroy()]);
      }
      // The services' own logs (not the stand-in storage server's, which logs its request paths).
      const logs = path.join(stackDir(layout), 'logs');
      const leaking = readdirSync(logs)
        .filter((name) => name.endsWith('.log') && name !== 's3.log')
        .filter((name) => /keep 30 days|coffee\.png/.test(readFileSync(path.join(logs, name), 'utf8')));
      expect(leaking).toEqual([]);
    });
  });

  describe('an order that failed after all its files were in', () => {
    it('keeps its input through the grace period, then loses it while staying failed and readable, and expires at expiresAt', async () => {
      setClockOffset(0);
      const own = await createAccount(gateway, 'enterprise', 10);
      const created = (await createEmbed(own.liveKey, embedBody([{ fileName: 'photo.png', texts: ['a'] }]))).body.data;
      expect(await uploadFiles(created, [corpusFile('broken/not-an-image.png')])).toEqual([200]);
      expect((await waitForOrder(own.liveKey, created.orderId)).status).toBe('failed');
      // Its files were all in, so the uploads service kept the input (a job may still read it); retention plans it.
      const row = () =>
        retention.query<Array<{ phase: string; failed_purge_at: Date | null; failed_purged_at: Date | null }>>(
          'SELECT phase, failed_purge_at, failed_purged_at FROM order_expiry WHERE order_id = $1',
          [created.orderId],
        );
      const [planned] = await eventually(row, (rows) => rows[0]?.failed_purge_at !== null && rows.length === 1);
      expect(planned.failed_purge_at?.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
      expect(planned.failed_purge_at?.getTime()).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
      expect(await objectsUnder(own.accountId, created.orderId)).toHaveLength(1);
      const detail = async () => (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: own.liveKey })).body.data;
      // No link to an object of a failed order, even before it goes: a link is valid for an hour.
      expect(await detail()).toMatchObject({ status: 'failed', thumbnailImageUrl: null, errors: { errorCode: 'WATERMARK_FILE_INVALID' } });

      setClockOffset(23 * 3600_000);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await objectsUnder(own.accountId, created.orderId)).toHaveLength(1);

      setClockOffset(24 * 3600_000 + 60_000);
      await eventually(() => objectsUnder(own.accountId, created.orderId), (keys) => keys.length === 0, 30_000);
      const [purged] = await eventually(row, (rows) => rows[0]?.failed_purged_at !== null);
      expect(purged.phase).toBe('scheduled');
      expect((await getOrder(own.liveKey, created.orderId)).status).toBe('failed');
      expect(await detail()).toMatchObject({ status: 'failed', thumbnailImageUrl: null, errors: { errorCode: 'WATERMARK_FILE_INVALID' } });
      const download = await api(`/api/v3/orders/${created.orderId}/download`, { key: own.liveKey });
      expect(download.status).toBe(400);

      setClockOffset(30 * DAY_MS + 60_000);
      expect((await waitForOrder(own.liveKey, created.orderId, ['expired'], 30_000)).status).toBe('expired');
      await eventually(row, (rows) => rows[0]?.phase === 'purged' || rows[0]?.phase === 'done');
      setClockOffset(0);
    });
  });

  describe('a test order whose retention period ends (it is never expired)', () => {
    it("keeps its test status, and loses its upload slots, webhook deliveries and client URLs like an expired order", async () => {
      setClockOffset(0);
      const own = await createAccount(gateway, 'enterprise', 0);
      const hook = await api('/api/v2/orders/webhooks', { key: own.testKey, method: 'POST', body: { name: 'retention', url: 'https://hooks.example.com/retention' } });
      expect(hook.status).toBe(201);
      const sourceUrl = 'https://images.example.com/Jane%20Doe.jpg?X-Amz-Signature=abc';
      const created = (await createEmbed(own.testKey, embedBody([{ fileName: 'Jane Doe.jpg', texts: ['Jane Doe'], originalFileUrl: sourceUrl }]))).body.data;
      expect((await waitForOrder(own.testKey, created.orderId)).status).toBe('complete');
      const uploads = await openSchema('uploads');
      const webhooks = await openSchema('webhooks');
      try {
        const slots = async (): Promise<number> => (await uploads.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM upload_slot WHERE order_id = $1', [created.orderId]))[0].n;
        const deliveries = async (): Promise<number> =>
          (await webhooks.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM webhook_delivery WHERE order_id = $1', [created.orderId]))[0].n;
        const urls = async (): Promise<Array<string | null>> =>
          (await orders.query<Array<{ source_url: string | null }>>('SELECT source_url FROM order_file WHERE order_id = $1', [created.orderId])).map((row) => row.source_url);
        expect(await slots()).toBe(1);
        await eventually(deliveries, (n) => n > 0);
        expect(await urls()).toEqual([sourceUrl]);

        setClockOffset(30 * DAY_MS + 60_000);
        await eventually(() => retention.query<Array<{ phase: string }>>('SELECT phase FROM order_expiry WHERE order_id = $1', [created.orderId]), (rows) => rows[0]?.phase === 'purged' || rows[0]?.phase === 'done', 30_000);
        await eventually(async () => [await slots(), await deliveries()], ([slotRows, deliveryRows]) => slotRows === 0 && deliveryRows === 0, 30_000);
        await eventually(urls, (found) => found.length === 1 && found[0] === null, 30_000);
        const order = await getOrder(own.testKey, created.orderId);
        expect({ status: order.status, outputs: order.outputs.map((output) => output.watermarkText) }).toEqual({ status: 'complete', outputs: ['Jane Doe'] });
      } finally {
        setClockOffset(0);
        await Promise.all([uploads.destroy(), webhooks.destroy()]);
      }
    });
  });

  describe('a sweep killed mid-way', () => {
    const COUNT = 600;
    let orderIds: string[];

    it('finishes after a restart: every object gone, every order expired, no row pointing at a deleted object', async () => {
      setClockOffset(0);
      const own = await createAccount(gateway, 'enterprise', 0);
      // Seeded like real completed orders: rows in orders and retention, an input and an output each.
      const expiresAt = new Date(Date.now() + 3600_000);
      const inserted = await orders.query<Array<{ id: string }>>(
        `INSERT INTO "order" (account_id, mode, type, api_version, status, expires_at, created_at, package_key)
           SELECT $1, 'live', 'watermarkEmbed', 'v3', 'complete', $2, now(), 'pending-key' FROM generate_series(1, $3) RETURNING id`,
        [own.accountId, expiresAt, COUNT],
      );
      orderIds = inserted.map((row) => String(row.id));
      await orders.query(`UPDATE "order" SET package_key = $1::text || '/' || id || '/outputs/1-1/a.png' WHERE id = ANY($2::bigint[])`, [own.accountId, orderIds]);
      await retention.query(
        `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at) SELECT id, $1, $2, 'scheduled', $2 FROM unnest($3::bigint[]) AS id`,
        [own.accountId, expiresAt, orderIds],
      );
      for (let start = 0; start < orderIds.length; start += 50) {
        await Promise.all(
          orderIds.slice(start, start + 50).flatMap((orderId) => [
            storage.put(storage.buckets.inputs, ObjectKeys.input(own.accountId, orderId, '1', 'a.png'), Buffer.from('in')),
            storage.put(storage.buckets.outputs, ObjectKeys.output(own.accountId, orderId, '1-1', 'a.png'), Buffer.from('out')),
          ]),
        );
      }
      const purged = async (): Promise<number> =>
        (await retention.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM order_expiry WHERE order_id = ANY($1::bigint[]) AND phase = 'purged'`, [orderIds]))[0].n;

      const leased = async (): Promise<number> =>
        (await retention.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM order_expiry WHERE order_id = ANY($1::bigint[]) AND leased_until IS NOT NULL`, [orderIds]))[0].n;
      setClockOffset(2 * 3600_000);
      // killed while a batch is leased (between two sweeps nothing is: a kill then would test nothing)
      await eventually(async () => [await purged(), await leased()], ([done, held]) => done >= 50 && held > 0, 60_000);
      await stack().stop('retention', 'SIGKILL');
      const atKill = await purged();
      expect(atKill).toBeLessThan(COUNT);

      // The killed sweep's batch stays leased until its lease runs out (RETENTION_LEASE_SECONDS, 15 min): move
      // the clock past it, as the time a real restart would wait.
      expect(await leased()).toBeGreaterThan(0);
      setClockOffset(2 * 3600_000 + 16 * 60_000);
      await restartRetention(FAST_RETENTION);
      await eventually(purged, (n) => n === COUNT, 120_000);
      expect(await leased()).toBe(0);
      const leftovers = await Promise.all(orderIds.map((orderId) => objectsUnder(own.accountId, orderId)));
      expect(leftovers.flat()).toEqual([]);
      const states = await orders.query<Array<{ status: string; n: number; keys: number }>>(
        `SELECT status, count(*)::int AS n, count(package_key)::int AS keys FROM "order" WHERE id = ANY($1::bigint[]) GROUP BY status`,
        [orderIds],
      );
      expect(states).toEqual([{ status: 'expired', n: COUNT, keys: 0 }]);
      // Longer than its waits (60 s, then 120 s): a slow run then fails on what did not happen, not on Jest's timeout.
    }, 240_000);
  });
});
