// The classes of input behind issue 20's four 500s, on every route of the OpenAPI document: deep JSON,
// path ids beyond 64 bits, NUL and control characters in any string, retired v2 routes before body parsing.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, createAccount, openSchema, TestAccount } from './support/e2e-stack';
import { embedBody } from './support/orders';

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function deepJson(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

describe('input hygiene on every route', () => {
  let gateway: DataSource;
  let account: TestAccount;
  let operations: Array<{ method: string; path: string }>;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    account = await createAccount(gateway, 'enterprise', 100);
    const document = (await api<OpenApiDocument>('/api/docs-json')).body;
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => method in item).map((method) => ({ method: method.toUpperCase(), path })),
    );
    expect(operations.length).toBeGreaterThan(15);
  });

  afterAll(async () => {
    await gateway.destroy();
  });

  it('a path id of the right shape but beyond 64 bits is 404 or 400 on every route, never 5xx', async () => {
    const withIds = operations.filter((operation) => operation.path.includes('{'));
    expect(withIds.length).toBeGreaterThan(8);
    for (const { method, path } of withIds) {
      for (const huge of ['99999999999999999999', '18446744073709551616', '9223372036854775808']) {
        const concrete = path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'fileId' ? `${huge}-1` : name === 'locale' ? 'en-US' : huge));
        const response = await api(concrete, { key: account.liveKey, method, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        const code = (response.body as { code?: unknown }).code;
        expect({ method, concrete, notFoundOrInvalid: [400, 404].includes(response.status), code: typeof code }).toEqual({ method, concrete, notFoundOrInvalid: true, code: 'string' });
      }
    }
  });

  it('an orderId in a body beyond 64 bits (the AI detection confirm) is 404 RESOURCE_NOT_FOUND like a path id, never 5xx', async () => {
    for (const huge of ['99999999999999999999', '9223372036854775808']) {
      const response = await api('/api/v2/orders/ai-detection/confirm', { key: account.liveKey, method: 'POST', body: { idempotencyKey: randomUUID(), orderId: huge } });
      expect({ huge, status: response.status, body: response.body }).toEqual({ huge, status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
    }
  });

  it('a body nested 100 000 levels deep is VALIDATION_FAILED on every route that takes a body', async () => {
    for (const { method, path } of operations.filter((operation) => ['POST', 'PUT', 'PATCH'].includes(operation.method))) {
      const concrete = path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'locale' ? 'en-US' : '1'));
      const response = await api(concrete, { key: account.liveKey, method, rawBody: deepJson(100_000) });
      expect({ method, concrete, clientError: response.status >= 400 && response.status < 500 }).toEqual({ method, concrete, clientError: true });
    }
    const embed = await api('/api/v3/orders/wtr-embed', { key: account.liveKey, method: 'POST', rawBody: deepJson(5000) });
    expect({ status: embed.status, body: embed.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it.each(['br', 'gzip', 'deflate', 'x-unknown'])('a body declared %s that does not decode is a 4xx with a code, not a 500', async (encoding) => {
    const response = await api('/api/v3/orders/wtr-embed', { key: account.liveKey, method: 'POST', rawBody: '{"files": []}', headers: { 'Content-Encoding': encoding } });
    expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it.each(['\u0000', '\u0001', '\u0008', '\n', '\u001b', '\u007f', '\u0085', '\ud800'])('%j in any string (values and keys, body and query) is VALIDATION_FAILED', async (character) => {
    const text = `mark${character}text`;
    const embed = await api('/api/v3/orders/wtr-embed', { key: account.liveKey, method: 'POST', body: embedBody([{ fileName: 'a.png', texts: [text] }]) });
    expect({ status: embed.status, body: embed.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    const key = await api('/api/v3/orders/wtr-embed', { key: account.liveKey, method: 'POST', body: { ...embedBody([{ fileName: 'a.png', texts: ['t'] }]), [text]: 1 } });
    expect(key.status).toBe(400);
    const extract = await api('/api/v3/orders/wtr-extract', {
      key: account.liveKey,
      method: 'POST',
      body: { idempotencyKey: randomUUID(), file: { fileName: `a${character}.png` } },
    });
    expect({ status: extract.status, body: extract.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    const webhook = await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: text, url: 'https://hooks.example.com/in' } });
    expect({ status: webhook.status, body: webhook.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    // A lone surrogate cannot be percent-encoded; its CESU-8 bytes are what a client would send.
    const encoded = character === '\ud800' ? '%ED%A0%80' : encodeURIComponent(character);
    const query = await api(`/api/v2/orders/stats/recent?date=2026-01-01${encoded}`, { key: account.liveKey });
    expect({ status: query.status, body: query.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('the retired v2 routes answer 410 before the body is read: not JSON, too large, wrong type', async () => {
    for (const path of ['/api/v2/orders/wtr-embed', '/api/v2/orders/wtr-extract', '/api/v2/orders/WTR-EMBED/']) {
      for (const [rawBody, contentType] of [
        ['{not json', 'application/json'],
        ['x'.repeat(3 * 1024 * 1024), 'application/json'],
        [deepJson(10_000), 'application/json'],
        ['<xml/>', 'text/xml'],
      ]) {
        const response = await api(path, { key: account.testKey, method: 'POST', rawBody, headers: { 'Content-Type': contentType } });
        expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 410, body: { code: 'WATERMARK_V2_API_SUNSET' } });
        expect(response.headers.get('sunset')).toBe('Fri, 09 Oct 2026 00:00:00 GMT');
      }
    }
    // 401 still comes first.
    expect((await api('/api/v2/orders/wtr-embed', { method: 'POST', rawBody: '{not json' })).status).toBe(401);
  });
});
