import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ContentProtectionClient } from './client';
import { ContentProtectionError } from './errors';
import { orderFailureHint } from './failure-hints';
import { retryAfterSeconds, retryingFetch } from './transport';

interface Seen {
  at: number;
  method: string;
  body: string;
}

/** A real HTTP server answering from a script, one answer per request. */
async function serve(answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }>): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ at: Date.now(), method: request.method ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const ORDER = { orderId: '7', status: 'pending', processingDelayed: false, expiresAt: null, files: [], outputs: [], result: null, reports: [] };

describe('transport', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const running = server;
    server = undefined;
    if (running) {
      running.closeAllConnections();
      await new Promise((resolve) => running.close(resolve));
    }
  });

  it('waits for Retry-After on 429, then succeeds', async () => {
    const stub = await serve([{ status: 429, headers: { 'retry-after': '1' }, body: { code: 'RATE_LIMIT_EXCEEDED' } }, { status: 200, body: { data: ORDER } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url });
    const order = await client.getOrder('7');
    expect(order.orderId).toBe('7');
    expect(stub.seen).toHaveLength(2);
    expect(stub.seen[1].at - stub.seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('retries an order creation on 503 with the same idempotency key, generated once', async () => {
    const stub = await serve([{ status: 503, body: { code: 'WATERMARK_V2_UNAVAILABLE' } }, { status: 200, body: { data: ORDER } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url, retry: { baseDelayMs: 10 } });
    await client.createEmbedOrder({ files: [{ fileName: 'a.png', watermarks: [{ text: 'alice' }] }] });
    const keys = stub.seen.map((request) => (JSON.parse(request.body) as { idempotencyKey: string }).idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('does not repeat a POST without an idempotency key on 503, and raises the typed error with its code', async () => {
    const stub = await serve([{ status: 503, body: { code: 'WATERMARK_V2_UNAVAILABLE' } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url, retry: { baseDelayMs: 10 } });
    const failure = await client.createWebhook('hook', 'https://example.com/hook').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ContentProtectionError);
    expect((failure as ContentProtectionError).code).toBe('WATERMARK_V2_UNAVAILABLE');
    expect((failure as ContentProtectionError).status).toBe(503);
    expect(stub.seen).toHaveLength(1);
  });

  // Outside review (CLI): an unreachable API read "NETWORK_ERROR: POST /api/v3/orders/wtr-embed: fetch failed", which
  // names neither the server tried nor why it could not be reached
  it('an unreachable API: NETWORK_ERROR names the address tried and why, in words', async () => {
    const closed = await serve([{ status: 200, body: {} }]);
    closed.server.closeAllConnections();
    await new Promise((resolve) => closed.server.close(resolve));
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: closed.url, retry: { maxRetries: 1, baseDelayMs: 10 } });
    const failure = (await client.getOrder('7').catch((error: unknown) => error)) as ContentProtectionError;
    expect(failure).toBeInstanceOf(ContentProtectionError);
    expect(failure.code).toBe('NETWORK_ERROR');
    expect(failure.message).toBe(`GET ${closed.url}/api/v3/orders/7: the connection was refused (ECONNREFUSED)`);
    const unknownHost = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: 'http://no-such-host.invalid', retry: { maxRetries: 0 } });
    const notFound = (await unknownHost.getOrder('7').catch((error: unknown) => error)) as ContentProtectionError;
    expect(notFound.message).toBe('GET http://no-such-host.invalid/api/v3/orders/7: the host name could not be resolved (ENOTFOUND)');
  });

  it('gives up after maxRetries and reports the last answer', async () => {
    const stub = await serve([{ status: 429, headers: { 'retry-after': '0' }, body: { code: 'RATE_LIMIT_EXCEEDED' } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url, retry: { maxRetries: 2 } });
    const failure = (await client.getOrder('7').catch((error: unknown) => error)) as ContentProtectionError;
    expect(failure.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(failure.details.retryAfterSeconds).toBe(0);
    expect(stub.seen).toHaveLength(3);
  });

  // Every 503 of the API says how long to wait (Retry-After: 5, docs/api-decisions.md); the SDK retried it after
  // its own backoff (0.25–0.5 s first), adding load to a pool or replica that had just said it needed 5 s.
  it('waits for the Retry-After of a 503 before repeating a repeatable request', async () => {
    jest.useFakeTimers();
    try {
      const answers = [
        new Response(JSON.stringify({ code: 'WATERMARK_V2_UNAVAILABLE' }), { status: 503, headers: { 'retry-after': '5' } }),
        new Response(JSON.stringify({ data: ORDER }), { status: 200 }),
      ];
      let calls = 0;
      const baseFetch = jest.fn((): Promise<Response> => Promise.resolve(answers[Math.min(calls++, 1)]));
      const pending = retryingFetch({ maxRetries: 2, baseDelayMs: 10, maxDelayMs: 30_000 }, baseFetch)(new Request('http://127.0.0.1/api/v3/orders/7'));
      await jest.advanceTimersByTimeAsync(4_900);
      expect(baseFetch).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(200);
      expect(baseFetch).toHaveBeenCalledTimes(2);
      expect((await pending).status).toBe(200);
    } finally {
      jest.useRealTimers();
    }
  });

  // A test key's daily order allowance answers 429 with Retry-After up to 24 hours: the SDK slept maxDelayMs (30 s)
  // and asked again, four times, each refused and counted against the account's rate limit, before giving up.
  it('returns a 429 or 503 at once when its Retry-After is longer than the policy may wait', async () => {
    const baseFetch = jest.fn(
      (): Promise<Response> => Promise.resolve(new Response(JSON.stringify({ code: 'RATE_LIMIT_EXCEEDED' }), { status: 429, headers: { 'retry-after': '3600' } })),
    );
    const response = await retryingFetch({ maxRetries: 4, baseDelayMs: 10, maxDelayMs: 30_000 }, baseFetch)(new Request('http://127.0.0.1/api/v3/orders/7'));
    expect([response.status, baseFetch.mock.calls.length]).toEqual([429, 1]);
  });

  it('an order that ends failed raises ORDER_FAILED with the order\'s public failure code and what it means in English', async () => {
    const failed = { ...ORDER, status: 'failed', files: [{ fileId: '1', uploadUrl: null }], failure: { errorCode: 'WATERMARK_SOURCE_URL_FAILED', errorMessage: '…' } };
    const stub = await serve([{ status: 200, body: { data: { ...ORDER, files: [{ fileId: '1', uploadUrl: null }], failure: null } } }, { status: 200, body: { data: failed } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url });
    const failure = (await client.protect({ files: [{ url: 'https://images.example.com/a.jpg' }], recipients: ['alice'] }).catch((error: unknown) => error)) as ContentProtectionError;
    expect([failure.code, failure.message]).toEqual([
      'ORDER_FAILED',
      'order 7 ended failed (WATERMARK_SOURCE_URL_FAILED: the file could not be fetched from its URL; it must be a public HTTPS address that answers with the file)',
    ]);
  });

  it.each([
    [{ ...ORDER, status: 'complete' }, 'VALIDATION_FAILED (HTTP 400): order 7 has no detection result: reports are made for extract (trace) orders, not for embed orders'],
    [{ ...ORDER, status: 'inProgress' }, 'VALIDATION_FAILED (HTTP 400): order 7 is inProgress: a report is made once the order is complete'],
    [{ ...ORDER, status: 'complete', result: { reportSupported: false } }, 'VALIDATION_FAILED (HTTP 400): order 7 inspected an image captured from a PDF: no report is made for it'],
    [{ ...ORDER, status: 'complete', result: { reportSupported: true } }, 'VALIDATION_FAILED (HTTP 400)'],
  ])('a report the API refuses with a bare 400 says why, from the order (%#)', async (order, message) => {
    const stub = await serve([{ status: 400, body: { code: 'VALIDATION_FAILED' } }, { status: 200, body: { data: order } }]);
    server = stub.server;
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url });
    const refused = (await client.report('7', 'en-US').catch((error: unknown) => error)) as ContentProtectionError;
    expect([refused.code, refused.message, refused.details.status]).toEqual(['VALIDATION_FAILED', message, 400]);
  });

  it.each([
    ['the one the service keeps is returned', true],
    ['another is refused (TRANSFER_FAILED)', false],
  ])('a downloaded report whose SHA-256 is %s', async (_, matches) => {
    const answers: Array<{ status: number; body: unknown }> = [];
    const stub = await serve(answers);
    server = stub.server;
    const pdf = Buffer.from(JSON.stringify('%PDF-1.7 the report'));
    const sha256 = matches ? createHash('sha256').update(pdf).digest('hex') : 'f'.repeat(64);
    const report = { orderId: '7', reportType: 'watermarkDetection', locale: 'en-US', status: 'completed', download: { url: `${stub.url}/report.pdf`, expiresInSeconds: 300, sha256 }, failure: null };
    answers.push({ status: 200, body: { data: report } }, { status: 200, body: '%PDF-1.7 the report' });
    const client = new ContentProtectionClient({ apiKey: 'sk_test_x', baseUrl: stub.url });
    const outcome = await client.report('7', 'en-US').then(
      (result) => result.pdf,
      (error: unknown) => error,
    );
    if (matches) {
      expect(outcome).toEqual(pdf);
    } else {
      expect((outcome as ContentProtectionError).code).toBe('TRANSFER_FAILED');
    }
  });

  it('has an English hint for every public failure code, and none for a code it does not know', () => {
    expect(orderFailureHint('ORDER_TIMEOUT')).toBe('the files were not all uploaded within 12 hours of the order');
    expect(orderFailureHint('SOMETHING_NEWER')).toBeUndefined();
    expect(orderFailureHint('toString')).toBeUndefined();
  });

  it('reads Retry-After in both forms', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '12' }))).toBe(12);
    expect(retryAfterSeconds(new Headers({ 'retry-after': new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString() }), Date.UTC(2026, 0, 1))).toBe(30);
    expect(retryAfterSeconds(new Headers())).toBeUndefined();
  });
});
