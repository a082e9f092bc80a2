// What a reviewer would try: another account's objects by id through every route of the OpenAPI
// document, test keys against live objects and the reverse, SSRF spellings of originalFileUrl, and
// API keys and webhook secrets in the services' logs.
import { CreatedWebhookView, WatermarkOrderView } from '@cp/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { readZip } from '@cp/testing';
import { ROOT } from '@cp/stack';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, download, embedBody, uploadFiles, waitForOrder } from './support/orders';

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('security checks', () => {
  let gateway: DataSource;
  let owner: TestAccount;
  let intruder: TestAccount;
  let liveOrder: WatermarkOrderView;
  let testOrder: WatermarkOrderView;
  let webhook: CreatedWebhookView;
  let operations: Array<{ method: string; path: string }>;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    owner = await createAccount(gateway, 'enterprise', 100);
    intruder = await createAccount(gateway, 'enterprise', 100);
    // The account's credits reach orders through an event: wait for them before the live order.
    const orders = await openSchema('orders');
    await eventually(
      async () => (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [owner.accountId]))[0]?.balance ?? -1,
      (balance) => balance === 100,
    );
    await orders.destroy();
    const live = await createEmbed(owner.liveKey, embedBody([{ fileName: 'secret.png', texts: ['owner only'] }]));
    expect(live.status).toBe(200);
    liveOrder = live.body.data;
    const test = await createEmbed(owner.testKey, embedBody([{ fileName: 'secret.png', texts: ['owner test'] }]));
    expect(test.status).toBe(200);
    testOrder = test.body.data;
    const created = await api<{ data: CreatedWebhookView }>('/api/v2/orders/webhooks', { key: owner.liveKey, method: 'POST', body: { name: 'owner hook', url: 'https://hooks.example.com/owner' } });
    expect(created.status).toBe(201);
    webhook = created.body.data;
    const document = (await api<OpenApiDocument>('/api/docs-json')).body;
    operations = Object.entries(document.paths).flatMap(([route, item]) =>
      METHODS.filter((method) => method in item && route.includes('{')).map((method) => ({ method: method.toUpperCase(), path: route })),
    );
    expect(operations.length).toBeGreaterThan(8);
  });

  afterAll(async () => {
    await gateway.destroy();
  });

  function concrete(route: string, orderId: string): string {
    return route.replace(/\{(\w+)\}/g, (_match, name: string) =>
      name === 'orderId' ? orderId : name === 'fileId' ? `${liveOrder.files[0].fileId}-1` : name === 'locale' ? 'en-US' : name === 'webhookId' ? String(webhook.id) : '1',
    );
  }

  it("another account's order, output, report and webhook by id, through every route: never found, never shown", async () => {
    for (const { method, path: route } of operations) {
      const url = concrete(route, liveOrder.orderId);
      for (const key of [intruder.liveKey, intruder.testKey]) {
        const response = await api(url, { key, method, body: method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', url: 'https://hooks.example.com/x', locale: 'en-US' } });
        const text = JSON.stringify(response.body);
        expect({ method, url, refused: [400, 404, 410].includes(response.status), leaks: text.includes('owner') || text.includes('secret.png') }).toEqual({ method, url, refused: true, leaks: false });
      }
    }
    // The owner still has everything.
    expect((await api(`/api/v3/orders/${liveOrder.orderId}`, { key: owner.liveKey })).status).toBe(200);
    expect((await api(`/api/v2/orders/webhooks/${webhook.id}`, { key: owner.liveKey })).status).toBe(200);
  });

  it('a test key never sees live objects, and a live key never sees test objects', async () => {
    expect((await api(`/api/v3/orders/${liveOrder.orderId}`, { key: owner.testKey })).body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
    expect((await api(`/api/v3/orders/${testOrder.orderId}`, { key: owner.liveKey })).body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
    expect((await api(`/api/v2/orders/${liveOrder.orderId}`, { key: owner.testKey })).status).toBe(404);
    expect((await api(`/api/v3/orders/${testOrder.orderId}`, { key: owner.testKey })).status).toBe(200);
  });

  it.each([
    'https://127.0.0.1/a.png',
    'https://[::1]/a.png',
    'https://[::ffff:127.0.0.1]/a.png',
    'https://[::ffff:7f00:1]/a.png',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00:ec2::254]/a.png',
    'https://10.0.0.1/a.png',
    'https://2130706433/a.png',
    'https://0x7f.0.0.1/a.png',
    'https://localhost/a.png',
    'https://metadata.google.internal/a.png',
    'http://images.example.com/a.png',
    'https://user:pass@images.example.com/a.png',
  ])('originalFileUrl %s is refused before any fetch', async (url) => {
    const response = await createEmbed(owner.liveKey, embedBody([{ fileName: 'a.png', texts: ['t'], originalFileUrl: url }]));
    expect({ url, status: response.status, body: response.body }).toEqual({ url, status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('hostile file names: separators and control characters are refused; quotes, Korean and RTL overrides never escape their object key, break Content-Disposition or reach a ZIP entry', async () => {
    for (const fileName of ['../evil.png', 'a/b.png', 'a\\b.png', 'nul\u0000.png', 'line\r\nbreak.png']) {
      const refused = await createEmbed(owner.liveKey, embedBody([{ fileName, texts: ['x'] }]));
      expect([fileName, refused.status, refused.body.code]).toEqual([fileName, 400, 'VALIDATION_FAILED']);
    }
    const hostile = '사진 "최종"\u202egnp.exe.png';
    const created = await createEmbed(owner.liveKey, embedBody([{ fileName: hostile, texts: ['first', 'second'] }]));
    expect(created.status).toBe(200);
    const order = created.body.data;
    expect(await uploadFiles(order, [corpusFile('photos/coffee.png')])).toEqual([200]);
    const done = await waitForOrder(owner.liveKey, order.orderId);
    expect(done.status).toBe('complete');
    // Each output: a valid RFC 6266 header whose UTF-8 name is the spec's name with the override replaced.
    const single = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${order.orderId}/files/${done.outputs[0].fileId}/download`, { key: owner.liveKey });
    const file = await fetch(single.body.data.downloadUrl);
    await file.arrayBuffer();
    expect(file.status).toBe(200);
    const header = file.headers.get('content-disposition') ?? '';
    const encoded = /filename\*=UTF-8''([^;]+)$/.exec(header)?.[1] ?? '';
    expect(decodeURIComponent(encoded)).toBe(`사진 "최종"_gnp.exe-watermarked-${done.outputs[0].fileId}.png`);
    expect(header).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    // The ZIP of both outputs: plain entry names, no folder part, no bidi control.
    const zip = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${order.orderId}/download`, { key: owner.liveKey });
    const entries = [...(await readZip((await download(zip.body.data.downloadUrl)).body)).keys()];
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(entry).not.toMatch(/[\\/\u202a-\u202e\u2066-\u2069]/);
      expect(entry.startsWith('사진 "최종"_gnp.exe-watermarked-')).toBe(true);
    }
  });

  it('API keys and webhook secrets never appear in any service log', () => {
    const directory = path.join(ROOT, 'tmp', layout.name, 'logs');
    const secrets = [owner.liveKey, owner.testKey, intruder.liveKey, intruder.testKey, webhook.secret];
    const found: string[] = [];
    for (const file of readdirSync(directory)) {
      const text = readFileSync(path.join(directory, file), 'utf8');
      secrets.forEach((secret, index) => {
        if (text.includes(secret)) {
          found.push(`${file}: secret #${index}`);
        }
      });
      // No key-shaped value at all, whoever's it is.
      if (/sk_(live|test)_[A-Za-z0-9_-]{20,}/.test(text)) {
        found.push(`${file}: a key-shaped value`);
      }
    }
    expect(secrets.every((secret) => secret.length > 10)).toBe(true);
    expect(found).toEqual([]);
  });
});
