// The edges a client developer's review left, on the running stack: unknown query parameters on every
// authenticated route, the v2 read's `Link` never echoing the request, a retired v2 route's 410 before the rate
// limit, RateLimit-Reset and Retry-After within the 60-second window, and a failed v3 order that says why.
import { WatermarkOrderView } from '@cp/contracts';
import { DataSource } from 'typeorm';
import { api, createAccount, openSchema, TestAccount } from './support/e2e-stack';
import { createEmbed, embedBody, waitForOrder } from './support/orders';

interface OpenApiOperation {
  security?: unknown[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('API edges (client review)', () => {
  let gateway: DataSource;
  let account: TestAccount;
  let order: WatermarkOrderView;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    account = await createAccount(gateway, 'enterprise', 100);
    const created = await createEmbed(account.testKey, embedBody([{ fileName: 'a.png', texts: ['alice'] }]));
    expect(created.status).toBe(200);
    order = created.body.data;
  });

  afterAll(async () => {
    await gateway.destroy();
  });

  it('an unknown query parameter is 400 VALIDATION_FAILED on every authenticated operation of the OpenAPI document', async () => {
    const document = (await api<{ paths: Record<string, Record<string, OpenApiOperation>> }>('/api/docs-json')).body;
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => method in item && item[method].security?.length !== 0).map((method) => ({ method: method.toUpperCase(), path })),
    );
    expect(operations.length).toBeGreaterThan(20);
    const ids: Record<string, string> = { orderId: order.orderId, fileId: `${order.files[0].fileId}-1`, locale: 'en-US', webhookId: '1', eventId: '1' };
    for (const { method, path } of operations) {
      const concrete = path.replace(/\{(\w+)\}/g, (_match, name: string) => ids[name] ?? '1');
      const response = await api(`${concrete}?foo=1`, { key: account.testKey, method });
      // The retired v2 routes answer 410 before anything else is looked at.
      const expected = /\/api\/v2\/orders\/wtr-(embed|extract)$/.test(path) ? { status: 410, body: { code: 'WATERMARK_V2_API_SUNSET' } } : { status: 400, body: { code: 'VALIDATION_FAILED' } };
      expect({ method, concrete, status: response.status, body: response.body }).toEqual({ method, concrete, ...expected });
    }
  });

  it('the order read answers without a query, with `?` alone and with the documented ones; not with an unknown one', async () => {
    expect((await api(`/api/v3/orders/${order.orderId}`, { key: account.testKey })).status).toBe(200);
    expect((await api(`/api/v3/orders/${order.orderId}?`, { key: account.testKey })).status).toBe(200);
    expect((await api('/api/v2/orders/stats/recent?date=2026-11-01', { key: account.testKey })).status).toBe(200);
    const typo = await api(`/api/v3/orders/${order.orderId}?include=files`, { key: account.testKey });
    expect([typo.status, typo.body]).toEqual([400, { code: 'VALIDATION_FAILED' }]);
  });

  it('the v2 read links its v3 successor on a 200 only; its 404s carry Deprecation and no Link, whatever the id sent', async () => {
    const own = await api(`/api/v2/orders/${order.orderId}`, { key: account.testKey });
    expect([own.status, own.headers.get('deprecation'), own.headers.get('link')]).toEqual([200, 'true', `</api/v3/orders/${order.orderId}>; rel="successor-version"`]);
    const stranger = await createAccount(gateway, 'free', 1);
    const odd = [order.orderId, `0${order.orderId}`, '9'.repeat(20), '1'.repeat(4000), '%3Cscript%3E', "a'b;c", '%E2%80%A8'];
    for (const id of odd) {
      // The first is the order of another account.
      const response = await api(`/api/v2/orders/${id}`, { key: id === order.orderId ? stranger.testKey : account.testKey });
      expect({ id: id.slice(0, 24), status: response.status, body: response.body, deprecation: response.headers.get('deprecation'), link: response.headers.get('link') }).toEqual({
        id: id.slice(0, 24),
        status: 404,
        body: { code: 'RESOURCE_NOT_FOUND' },
        deprecation: 'true',
        link: null,
      });
    }
  });

  it('a retired v2 route answers 410 without spending the rate limit, also when the plan is used up', async () => {
    const free = await createAccount(gateway, 'free', 1);
    const retired = await api('/api/v2/orders/wtr-embed', { key: free.testKey, method: 'POST', body: {} });
    expect([retired.status, retired.headers.get('ratelimit-remaining'), retired.headers.get('link')]).toEqual([410, null, '</api/v3/orders/wtr-embed>; rel="successor-version"']);
    // Free: 60 a minute. The first counted request sees all 60 left: the 410 before it spent none. It leaves the
    // 60-second window in 60 s, which RateLimit-Reset says (it said 61 before the client review).
    const first = await api('/api/v2/orders/webhooks', { key: free.testKey });
    expect([first.status, first.headers.get('ratelimit-remaining'), first.headers.get('ratelimit-reset')]).toEqual([200, '59', '60']);
    let refusal: Headers | undefined;
    for (let sent = 1; sent <= 70 && refusal === undefined; sent += 1) {
      const response = await api('/api/v2/orders/webhooks', { key: free.testKey });
      refusal = response.status === 429 ? response.headers : undefined;
    }
    const retryAfter = Number(refusal?.get('retry-after'));
    expect([retryAfter >= 1 && retryAfter <= 60, refusal?.get('ratelimit-reset')]).toEqual([true, String(retryAfter)]);
    for (const path of ['/api/v2/orders/wtr-embed', '/api/v2/orders/wtr-extract']) {
      const after = await api(path, { key: free.testKey, method: 'POST', body: {} });
      expect([path, after.status, after.body, after.headers.get('retry-after')]).toEqual([path, 410, { code: 'WATERMARK_V2_API_SUNSET' }, null]);
    }
    expect((await api('/api/v2/orders/wtr-embed', { method: 'POST', body: {} })).status).toBe(401);
  });

  it('a failed v3 order says why: failure.errorCode, the same code as the v2 detail', async () => {
    const own = await createAccount(gateway, 'enterprise', 5);
    // A name under no resolvable host: the fetch fails (after its retries) and so does the order.
    const created = await createEmbed(own.liveKey, embedBody([{ fileName: 'photo.jpg', texts: ['bob'], originalFileUrl: 'https://images.example.com/photo.jpg' }]));
    expect([created.status, created.body.data.failure]).toEqual([200, null]);
    const failed = await waitForOrder(own.liveKey, created.body.data.orderId, ['failed', 'complete']);
    expect([failed.status, failed.failure?.errorCode, typeof failed.failure?.errorMessage]).toEqual(['failed', 'WATERMARK_SOURCE_URL_FAILED', 'string']);
    const detail = await api<{ data: { errors: { errorCode: string; errorMessage: string } | null } }>(`/api/v2/orders/${failed.orderId}`, { key: own.liveKey });
    expect(detail.body.data.errors).toEqual(failed.failure);
  });
});
