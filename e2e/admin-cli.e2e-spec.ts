// The operator's admin CLI on the running stack: an account it creates, and credits it adds, can be used the moment
// it prints them. The credits reach the orders service through the gateway's outbox and the EVENTS stream, a moment
// after the CLI wrote them; the CLI waits until the orders service says it applied them. An account it erases is
// refused at once and its data is gone from every service's schema and from storage. An order it erases answers 404
// to its owner at once and its rows and objects are gone from every service, its sibling untouched.
import { databaseUrl, ROOT } from '@cp/stack';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { ObjectKeys } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { api, eventually, layout, openSchema } from './support/e2e-stack';
import { corpusFile, createEmbed, embedBody, uploadFiles, waitForOrder } from './support/orders';

/** `npm run admin -- <args> --json` against the e2e stack's database and NATS. */
function admin(args: string[]): { status: number | null; stdout: string; stderr: string; output: Record<string, unknown> | null } {
  const run = spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'tools/admin/admin.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: databaseUrl(layout), NATS_URL: layout.natsUrl },
    timeout: 90_000,
  });
  let output: Record<string, unknown> | null = null;
  try {
    output = JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    // not JSON (an error): the test shows stdout and stderr
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output };
}

describe('admin CLI: accounts and credits usable as soon as printed', () => {
  it('account create waits until the orders service holds the credits; an order sent at once is accepted', async () => {
    const created = admin(['account', 'create', '--name', `cli-${randomUUID().slice(0, 8)}`, '--plan', 'pro', '--credits', '3', '--json']);
    expect({ status: created.status, stderr: created.stderr }).toEqual({ status: 0, stderr: '' });
    expect(created.output).toMatchObject({ plan: 'pro', credits: 3, creditsApplied: true, balance: 3 });
    const accountId = String(created.output?.accountId);

    const key = admin(['key', 'issue', '--account', accountId, '--mode', 'live', '--json']);
    expect(key.status).toBe(0);
    // Three texts: all three credits, right after the CLI returned.
    const order = await createEmbed(String(key.output?.key), embedBody([{ fileName: 'photo.png', texts: ['a', 'b', 'c'] }]));
    expect({ status: order.status, code: order.body.code }).toEqual({ status: 200, code: undefined });

    const added = admin(['credits', 'add', '--account', accountId, '--amount', '2', '--json']);
    expect(added.status).toBe(0);
    expect(added.output).toMatchObject({ accountId, amount: 2, creditsApplied: true, balance: 2 });
  });

  it('--wait 0 returns at once without asking the orders service; a bad --wait is refused before anything is written', async () => {
    const name = `cli-${randomUUID().slice(0, 8)}`;
    const refused = admin(['account', 'create', '--name', name, '--credits', '1', '--wait', 'soon', '--json']);
    expect({ status: refused.status, stderr: refused.stderr }).toEqual({ status: 2, stderr: 'admin: --wait must be whole seconds from 0 to 3600\n' });

    const help = admin(['--help']);
    expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
    expect(help.stdout).toContain('account create --name');
    expect(help.stdout).toContain('order erase --account 1 --order 4711 --confirm 4711');
    const unknown = admin(['account', 'create', '--nmae', name]);
    expect({ status: unknown.status, stderr: unknown.stderr }).toEqual({ status: 2, stderr: expect.stringContaining('(admin --help lists the commands)') as unknown });

    const quick = admin(['account', 'create', '--name', name, '--credits', '1', '--wait', '0', '--json']);
    expect(quick.status).toBe(0);
    expect(quick.output).toMatchObject({ name, credits: 1 });
    expect(quick.output).not.toHaveProperty('creditsApplied');
    const gateway = await openSchema('gateway');
    try {
      const rows = await gateway.query<Array<{ count: string }>>('SELECT count(*) AS count FROM account WHERE name = $1', [name]);
      expect(rows[0].count).toBe('1');
    } finally {
      await gateway.destroy();
    }
  });
});

describe('admin CLI: account erase', () => {
  const storage = new ObjectStorage(
    toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x', S3_ENDPOINT: `http://127.0.0.1:${layout.s3Port}` })),
  );
  const objectsOf = async (accountId: string): Promise<string[]> => {
    const { inputs, outputs, reports } = storage.buckets;
    return (await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, ObjectKeys.accountPrefix(accountId))))).flat();
  };

  it("needs --confirm with the account's name; then its keys are refused (401) and its rows and objects are gone from every service", async () => {
    const name = `erase-${randomUUID().slice(0, 8)}`;
    const created = admin(['account', 'create', '--name', name, '--plan', 'pro', '--credits', '5', '--email', 'jane.doe@example.com', '--json']);
    expect(created.status).toBe(0);
    const accountId = String(created.output?.accountId);
    const liveKey = String(admin(['key', 'issue', '--account', accountId, '--mode', 'live', '--json']).output?.key);
    const testKey = String(admin(['key', 'issue', '--account', accountId, '--mode', 'test', '--json']).output?.key);
    expect((await api('/api/v2/orders/webhooks', { key: liveKey, method: 'POST', body: { name: 'erasure', url: 'https://hooks.example.com/erasure' } })).status).toBe(201);
    const order = (await createEmbed(liveKey, embedBody([{ fileName: 'Jane Doe.png', texts: ['Jane Doe'] }]))).body.data;
    expect(await uploadFiles(order, [corpusFile('photos/coffee.png')])).toEqual([200]);
    expect((await waitForOrder(liveKey, order.orderId)).status).toBe('complete');

    const schemas = await Promise.all(['gateway', 'orders', 'watermark', 'uploads', 'webhooks', 'reports', 'retention'].map((name) => openSchema(name)));
    const [gateway, orders, watermark, uploads, webhooks, reports, retention] = schemas;
    const count = async (db: (typeof schemas)[number], sql: string, param: string = accountId): Promise<number> => (await db.query<Array<{ n: number }>>(sql, [param]))[0].n;
    const rows = async (): Promise<Record<string, number>> => ({
      accounts: await count(gateway, 'SELECT count(*)::int AS n FROM account WHERE id = $1'),
      keys: await count(gateway, 'SELECT count(*)::int AS n FROM api_key WHERE account_id = $1'),
      orders: await count(orders, 'SELECT count(*)::int AS n FROM "order" WHERE account_id = $1'),
      credits: await count(orders, 'SELECT count(*)::int AS n FROM credit_ledger_entry WHERE account_id = $1'),
      issuances: await count(watermark, 'SELECT count(*)::int AS n FROM issuance WHERE account_id = $1'),
      slots: await count(uploads, 'SELECT count(*)::int AS n FROM upload_slot WHERE account_id = $1'),
      webhooks: await count(webhooks, 'SELECT count(*)::int AS n FROM webhook_endpoint WHERE account_id = $1'),
      contacts: await count(webhooks, 'SELECT count(*)::int AS n FROM account_contact WHERE account_id = $1'),
      reports: await count(reports, 'SELECT count(*)::int AS n FROM report WHERE account_id = $1'),
      schedules: await count(retention, 'SELECT count(*)::int AS n FROM order_expiry WHERE account_id = $1'),
    });
    try {
      // The order's deliveries exist before the erasure (the receiver is unreachable: they stay, pending or failed).
      await eventually(() => count(webhooks, 'SELECT count(*)::int AS n FROM webhook_delivery WHERE account_id = $1'), (n) => n > 0);
      await eventually(rows, (found) => found.contacts === 1 && found.schedules === 1);
      expect(await rows()).toMatchObject({ accounts: 1, keys: 2, orders: 1, issuances: 1, slots: 1, webhooks: 1 });
      expect((await objectsOf(accountId)).length).toBeGreaterThan(0);

      const unconfirmed = admin(['account', 'erase', '--account', accountId, '--json']);
      expect({ status: unconfirmed.status, stderr: unconfirmed.stderr }).toEqual({ status: 2, stderr: expect.stringContaining("give the account's name with --confirm") as unknown });
      // Review: repeating the id confirmed a mistyped id as readily; the name is known apart from it.
      for (const confirm of [accountId, `${name}x`]) {
        const mistyped = admin(['account', 'erase', '--account', accountId, '--confirm', confirm, '--json']);
        expect({ status: mistyped.status, stderr: mistyped.stderr }).toEqual({ status: 2, stderr: `admin: no account ${accountId} is named so (never created, already erased, or another account's id): nothing erased\n` });
      }
      expect((await api(`/api/v3/orders/${order.orderId}`, { key: liveKey })).status).toBe(200);

      const erased = admin(['account', 'erase', '--account', accountId, '--confirm', name, '--wait', '60', '--json']);
      expect({ status: erased.status, stderr: erased.stderr }).toEqual({ status: 0, stderr: '' });
      expect(erased.output).toMatchObject({ accountId, keysDeleted: 2, asked: 'orders, uploads, watermark, reports, webhooks, retention', erased: 'confirmed by every service', parkedDiscarded: 0 });

      for (const key of [liveKey, testKey]) {
        const refused = await api(`/api/v3/orders/${order.orderId}`, { key });
        expect({ status: refused.status, body: refused.body }).toMatchObject({ status: 401, body: { code: 'AUTH_NOT_AUTHENTICATED' } });
      }
      expect(await rows()).toEqual({ accounts: 0, keys: 0, orders: 0, credits: 0, issuances: 0, slots: 0, webhooks: 0, contacts: 0, reports: 0, schedules: 0 });
      expect(await count(webhooks, 'SELECT count(*)::int AS n FROM webhook_delivery WHERE account_id = $1')).toBe(0);
      expect(await count(orders, 'SELECT count(*)::int AS n FROM order_output WHERE order_id = $1', order.orderId)).toBe(0);
      expect(await objectsOf(accountId)).toEqual([]);

      const again = admin(['account', 'erase', '--account', accountId, '--confirm', name, '--json']);
      expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 2, stderr: `admin: no account ${accountId} is named so (never created, already erased, or another account's id): nothing erased\n` });
    } finally {
      await Promise.all(schemas.map((db) => db.destroy()));
    }
  });
});

describe('admin CLI: order erase', () => {
  const storage = new ObjectStorage(
    toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x', S3_ENDPOINT: `http://127.0.0.1:${layout.s3Port}` })),
  );
  const objectsUnder = async (prefix: string): Promise<string[]> => {
    const { inputs, outputs, reports } = storage.buckets;
    return (await Promise.all([inputs, outputs, reports].map((bucket) => storage.listKeys(bucket, prefix)))).flat();
  };

  it("needs its account and --confirm with the order's id; then the order answers 404 to its owner and its rows and objects are gone, its sibling's kept", async () => {
    const created = admin(['account', 'create', '--name', `order-erase-${randomUUID().slice(0, 8)}`, '--plan', 'pro', '--credits', '5', '--json']);
    expect(created.status).toBe(0);
    const accountId = String(created.output?.accountId);
    const key = String(admin(['key', 'issue', '--account', accountId, '--mode', 'live', '--json']).output?.key);
    const erasedOrder = (await createEmbed(key, embedBody([{ fileName: 'Jane Doe.png', texts: ['Jane Doe'] }]))).body.data;
    const sibling = (await createEmbed(key, embedBody([{ fileName: 'John Doe.png', texts: ['John Doe'] }]))).body.data;
    for (const order of [erasedOrder, sibling]) {
      expect(await uploadFiles(order, [corpusFile('photos/coffee.png')])).toEqual([200]);
      expect((await waitForOrder(key, order.orderId)).status).toBe('complete');
    }

    const schemas = await Promise.all(['orders', 'watermark', 'uploads', 'reports', 'retention'].map((name) => openSchema(name)));
    const [orders, watermark, uploads, reports, retention] = schemas;
    const count = async (db: (typeof schemas)[number], sql: string, param: string): Promise<number> => (await db.query<Array<{ n: number }>>(sql, [param]))[0].n;
    const rows = async (orderId: string): Promise<Record<string, number>> => ({
      orders: await count(orders, 'SELECT count(*)::int AS n FROM "order" WHERE id = $1', orderId),
      outputs: await count(orders, 'SELECT count(*)::int AS n FROM order_output WHERE order_id = $1', orderId),
      issuances: await count(watermark, 'SELECT count(*)::int AS n FROM issuance WHERE order_id = $1', orderId),
      slots: await count(uploads, 'SELECT count(*)::int AS n FROM upload_slot WHERE order_id = $1', orderId),
      reports: await count(reports, 'SELECT count(*)::int AS n FROM report WHERE order_id = $1', orderId),
      schedules: await count(retention, 'SELECT count(*)::int AS n FROM order_expiry WHERE order_id = $1', orderId),
    });
    const present = { orders: 1, outputs: 1, issuances: 1, slots: 1, schedules: 1 };
    try {
      for (const order of [erasedOrder, sibling]) {
        await eventually(() => rows(order.orderId), (found) => found.schedules === 1);
        expect(await rows(order.orderId)).toMatchObject(present);
        expect((await objectsUnder(ObjectKeys.orderPrefix(accountId, order.orderId))).length).toBeGreaterThan(0);
      }

      const unconfirmed = admin(['order', 'erase', '--account', accountId, '--order', erasedOrder.orderId, '--json']);
      expect({ status: unconfirmed.status, stderr: unconfirmed.stderr }).toEqual({ status: 2, stderr: expect.stringContaining(`--confirm ${erasedOrder.orderId}`) as unknown });
      // Another account's id (the order id mistyped into another account's order): nothing erased.
      const otherAccount = String(Number(accountId) + 1000);
      const elsewhere = admin(['order', 'erase', '--account', otherAccount, '--order', erasedOrder.orderId, '--confirm', erasedOrder.orderId, '--json']);
      expect({ status: elsewhere.status, stderr: elsewhere.stderr }).toEqual({
        status: 2,
        stderr: `admin: account ${otherAccount} has no order ${erasedOrder.orderId} (never created, erased with its account, or another account's): nothing erased\n`,
      });
      expect((await api(`/api/v3/orders/${erasedOrder.orderId}`, { key })).status).toBe(200);

      const erased = admin(['order', 'erase', '--account', accountId, '--order', erasedOrder.orderId, '--confirm', erasedOrder.orderId, '--wait', '60', '--json']);
      expect({ status: erased.status, stderr: erased.stderr }).toEqual({ status: 0, stderr: '' });
      expect(erased.output).toMatchObject({
        orderId: erasedOrder.orderId,
        accountId,
        statusWhenErased: 'complete',
        repeated: false,
        asked: 'uploads, watermark, reports, webhooks, retention',
        erased: 'confirmed by every service',
        parkedDiscarded: 0,
      });

      const gone = await api(`/api/v3/orders/${erasedOrder.orderId}`, { key });
      const unknown = await api('/api/v3/orders/999999999999', { key });
      expect({ status: gone.status, code: gone.body.code }).toEqual({ status: unknown.status, code: unknown.body.code });
      expect({ status: gone.status, code: gone.body.code }).toEqual({ status: 404, code: 'RESOURCE_NOT_FOUND' });
      expect(await rows(erasedOrder.orderId)).toEqual({ orders: 0, outputs: 0, issuances: 0, slots: 0, reports: 0, schedules: 0 });
      expect(await objectsUnder(ObjectKeys.orderPrefix(accountId, erasedOrder.orderId))).toEqual([]);
      // Looked at again later for objects written by jobs in flight at the erasure.
      expect(await count(retention, 'SELECT count(*)::int AS n FROM erased_prefix WHERE prefix = $1', ObjectKeys.orderPrefix(accountId, erasedOrder.orderId))).toBe(1);

      expect((await api(`/api/v3/orders/${sibling.orderId}`, { key })).status).toBe(200);
      expect(await rows(sibling.orderId)).toMatchObject(present);
      expect((await objectsUnder(ObjectKeys.orderPrefix(accountId, sibling.orderId))).length).toBeGreaterThan(0);

      // Asked again (as after a lost answer): that erasure, already confirmed; nothing more erased.
      const again = admin(['order', 'erase', '--account', accountId, '--order', erasedOrder.orderId, '--confirm', erasedOrder.orderId, '--wait', '60', '--json']);
      expect({ status: again.status, stderr: again.stderr }).toEqual({ status: 0, stderr: '' });
      expect(again.output).toEqual({
        orderId: erasedOrder.orderId,
        accountId,
        erasureId: erased.output?.erasureId,
        repeated: true,
        asked: 'uploads, watermark, reports, webhooks, retention',
        erased: 'confirmed by every service',
        parkedDiscarded: 0,
      });
      expect((await api(`/api/v3/orders/${sibling.orderId}`, { key })).status).toBe(200);

      // Asked again longer ago than EVENTS keeps events (its record moved 8 days back): said at once, not waited for.
      await orders.query(`UPDATE order_erasure SET requested_at = requested_at - interval '8 days' WHERE order_id = $1`, [erasedOrder.orderId]);
      const late = admin(['order', 'erase', '--account', accountId, '--order', erasedOrder.orderId, '--confirm', erasedOrder.orderId, '--wait', '60', '--json']);
      expect({ status: late.status, stderr: late.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('its confirmations can no longer be read from NATS') as unknown });
      expect(late.output).toMatchObject({ erasureId: erased.output?.erasureId, repeated: true, erased: 'requested earlier; no longer confirmable' });
    } finally {
      await Promise.all(schemas.map((db) => db.destroy()));
    }
  });
});
