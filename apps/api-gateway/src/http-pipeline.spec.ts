// The gateway's HTTP pipeline in-process over a real HTTP server (body parsing, input hygiene, validation, the
// error mapping), with the real controllers and fakes for the services behind them: the exact bad requests
// found by black-box testing, sent byte for byte.
import { Clock, ManualClock } from '@cp/clock';
import { DomainException, ErrorCode } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { signUploadToken } from '@cp/storage';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { once } from 'node:events';
import { IncomingMessage, request } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { AuthenticatedKeyCache } from './auth/authenticated-key-cache';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';
import { configureGatewayPipeline } from './http-pipeline';
import { AiDetectionController } from './order-types/ai-detection/ai-detection.controller';
import { AntiAiController } from './order-types/anti-ai/anti-ai.controller';
import { WatermarkEmbedController } from './order-types/watermark-embed/watermark-embed.controller';
import { WatermarkExtractController } from './order-types/watermark-extract/watermark-extract.controller';
import { RateLimiterService } from './rate-limit/rate-limiter.service';
import { RecordedTestUploads } from './test-uploads/recorded-test-uploads';
import { TestUploadTokenGuard } from './test-uploads/test-upload-token.guard';
import { TestUploadsController } from './test-uploads/test-uploads.controller';
import { ReportsController } from './reports/reports.controller';
import { V2OrdersController } from './v2/v2-orders.controller';
import { WebhooksController } from './webhooks/webhooks.controller';

const KEY = `sk_test_${'a'.repeat(43)}`;

/** Records every command the controllers send; answers each with an empty object (the pipeline is under test, not the services). */
class RecordingRpc {
  readonly payloads: unknown[] = [];
  /** What every request is answered with (an empty object unless a test says otherwise). */
  answer: object = {};

  request(_rpc: unknown, payload: unknown): Promise<object> {
    this.payloads.push(payload);
    return Promise.resolve(this.answer);
  }
}

/** The fake rate limiter: always allows, and counts the requests it was asked about. */
class CountingRateLimiter {
  consumed = 0;

  consume(): Promise<{ allowed: boolean; limit: number; remaining: number; resetSeconds: number }> {
    this.consumed += 1;
    return Promise.resolve({ allowed: true, limit: 1000, remaining: 999, resetSeconds: 60 });
  }
}

interface Answer {
  status: number;
  body: unknown;
}

describe('gateway HTTP pipeline (in-process, real HTTP server)', () => {
  // Before the v2 retirement, so the v2 creation routes are still open and reach their DTOs.
  const clock = new ManualClock(new Date('2026-06-01T00:00:00.000Z'));
  const rpc = new RecordingRpc();
  const rateLimiter = new CountingRateLimiter();
  let app: NestExpressApplication;
  let port: number;
  let config: { bodyLimitBytes: number; publicBaseUrl: string; log: { level: string }; testUploadSecret: string };

  async function send(method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<Answer> {
    const outgoing = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    });
    outgoing.end(body);
    const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  const json = (method: string, path: string, value: unknown): Promise<Answer> => send(method, path, JSON.stringify(value));

  beforeAll(async () => {
    config = { bodyLimitBytes: 1024 * 1024, publicBaseUrl: 'http://127.0.0.1:3000', log: { level: 'silent' }, testUploadSecret: 'a-test-upload-secret-of-this-spec' };
    const moduleRef = await Test.createTestingModule({
      controllers: [WatermarkEmbedController, WatermarkExtractController, AntiAiController, AiDetectionController, WebhooksController, ReportsController, V2OrdersController, TestUploadsController],
      providers: [
        TestUploadTokenGuard,
        RecordedTestUploads,
        { provide: RpcClient, useValue: rpc },
        { provide: Clock, useValue: clock },
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: AuthenticatedKeyCache, useValue: { authenticate: () => Promise.resolve({ keyId: '1', accountId: '7', mode: 'test', plan: 'enterprise' }) } },
        { provide: RateLimiterService, useValue: rateLimiter },
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
    configureGatewayPipeline(app, config as unknown as GatewayConfig);
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer() as { address(): AddressInfo }).address().port;
  });

  afterAll(() => app.close());

  beforeEach(() => {
    rpc.payloads.length = 0;
    rpc.answer = {};
  });

  /** Status, body and the headers of the answer. */
  async function sendForHeaders(method: string, path: string, body?: string): Promise<Answer & { headers: IncomingMessage['headers'] }> {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } });
    outgoing.end(body);
    const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined, headers: response.headers };
  }

  const embedBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    idempotencyKey: 'k',
    files: [{ fileName: 'a.jpg', watermarks: [{ text: 'ab' }] }],
    ...extra,
  });

  it('a valid embed body reaches the orders service (the control case)', async () => {
    expect(await json('POST', '/api/v3/orders/wtr-embed', embedBody())).toEqual({ status: 200, body: { data: {} } });
    expect(rpc.payloads).toHaveLength(1);
  });

  // Attack review: the DTO layer costs 25–140 µs a value, so a 1 MiB body of 350,000 empty objects held the event
  // loop 8.7 s (100,000 unknown members: 14 s) before its 400. Such a body is refused by the input hygiene, before
  // routing and before any DTO is built: on an unknown route too, where it was 404 after being walked.
  describe('a body larger than any request of the API is refused before any DTO sees it', () => {
    const oversized: Array<[string, unknown]> = [
      ['340,000 empty files', { idempotencyKey: 'k', files: Array.from({ length: 340_000 }, () => ({})) }],
      ['101 files', { idempotencyKey: 'k', files: Array.from({ length: 101 }, () => ({ fileName: 'a.jpg', watermarks: [{ text: 'ab' }] })) }],
      ['80,000 unknown members', { ...embedBody(), ...Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, 0])) }],
    ];

    it.each(oversized)('%s: 400 VALIDATION_FAILED, also on an unknown route', async (_name, body) => {
      expect(await json('POST', '/api/v3/orders/wtr-embed', body)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(await json('POST', '/api/v3/orders/no-such-route', body)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });

    it('the largest body the API accepts still reaches the orders service', async () => {
      const files = Array.from({ length: 100 }, (_, i) => ({ fileName: `${i}.jpg`, originalFileUrl: `https://images.example.com/${i}.jpg`, watermarks: Array.from({ length: 10 }, (_, j) => ({ text: `text ${j}` })) }));
      expect(await json('POST', '/api/v3/orders/wtr-embed', { idempotencyKey: 'k'.repeat(255), files })).toEqual({ status: 200, body: { data: {} } });
      expect(await json('POST', '/api/v3/orders/no-such-route', embedBody())).toEqual({ status: 404, body: { code: 'ROUTE_NOT_FOUND' } });
    });
  });

  describe('invalid UTF-8 in a JSON body is refused, never replaced by U+FFFD', () => {
    const BAD_TEXT = Buffer.concat([Buffer.from('{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}]}]}')]);

    it('the black-box request: 0xFF 0xFE inside a watermark text', async () => {
      expect(await send('POST', '/api/v3/orders/wtr-embed', BAD_TEXT)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });

    it.each([
      ['a truncated sequence', Buffer.from([0xe2, 0x82])],
      ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
      ['an encoded surrogate (CESU-8)', Buffer.from([0xed, 0xa0, 0x80])],
      ['a code point beyond U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
      ['a stray continuation byte', Buffer.from([0x80])],
    ])('%s, in a key or a value, on every route that takes a body', async (_name, bad) => {
      const bodies: Array<[string, string, Buffer]> = [
        ['POST', '/api/v3/orders/wtr-embed', Buffer.concat([Buffer.from('{"idempotencyKey":"k'), bad, Buffer.from('","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}')])],
        ['POST', '/api/v3/orders/wtr-extract', Buffer.concat([Buffer.from('{"idempotencyKey":"k","file":{"fileName":"b'), bad, Buffer.from('.png","originalFile":{"fileName":"a.png"}}}')])],
        ['POST', '/api/v2/orders/wtr-embed', Buffer.concat([Buffer.from('{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"a'), bad, Buffer.from('"}]}]}')])],
        ['POST', '/api/v2/orders/webhooks', Buffer.concat([Buffer.from('{"name":"p'), bad, Buffer.from('","url":"https://hooks.example.com/x"}')])],
        ['PUT', '/api/v2/orders/webhooks/3', Buffer.concat([Buffer.from('{"name":"pp","url":"https://hooks.example.com/x","'), bad, Buffer.from('":1}')])],
        ['POST', '/api/v3/orders/42/reports', Buffer.concat([Buffer.from('{"locale":"en-US'), bad, Buffer.from('"}')])],
      ];
      for (const [method, path, body] of bodies) {
        expect([method, path, await send(method, path, body)]).toEqual([method, path, { status: 400, body: { code: 'VALIDATION_FAILED' } }]);
      }
      expect(rpc.payloads).toEqual([]);
    });

    it('also after gzip: the bytes checked are the decoded body', async () => {
      expect(await send('POST', '/api/v3/orders/wtr-embed', gzipSync(BAD_TEXT), { 'content-encoding': 'gzip' })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    });

    it('valid UTF-8, with or without a BOM, in any case of the charset, is read as before', async () => {
      const text = '한국어 워터마크 😀';
      const body = Buffer.from(JSON.stringify(embedBody({ files: [{ fileName: 'a.jpg', watermarks: [{ text }] }] })));
      for (const [bytes, type] of [
        [body, 'application/json'],
        [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), 'application/json'],
        [body, 'application/json; charset=UTF-8'],
      ] as const) {
        expect(await send('POST', '/api/v3/orders/wtr-embed', bytes, { 'content-type': type })).toEqual({ status: 200, body: { data: {} } });
      }
      const texts = (rpc.payloads as Array<{ request: { files: Array<{ watermarks: Array<{ text: string }> }> } }>).map(({ request }) => request.files[0].watermarks[0].text);
      expect(texts).toEqual([text, text, text]);
    });

    it('UTF-16 is decoded strictly too: an odd trailing byte or a lone surrogate is refused, a valid body read', async () => {
      const utf16 = (value: string, bom: boolean): Buffer => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(value, 'utf16le')]);
      const body = JSON.stringify(embedBody());
      expect(await send('POST', '/api/v3/orders/wtr-embed', utf16(body, true), { 'content-type': 'application/json; charset=utf-16' })).toEqual({ status: 200, body: { data: {} } });
      expect(await send('POST', '/api/v3/orders/wtr-embed', utf16(body, false), { 'content-type': 'application/json; charset=utf-16le' })).toEqual({ status: 200, body: { data: {} } });
      expect(await send('POST', '/api/v3/orders/wtr-embed', Buffer.concat([utf16(body, true), Buffer.from([0x20])]), { 'content-type': 'application/json; charset=utf-16' })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      const loneSurrogate = Buffer.concat([Buffer.from('{"idempotencyKey":"', 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from('","files":[]}', 'utf16le')]);
      expect(await send('POST', '/api/v3/orders/wtr-embed', loneSurrogate, { 'content-type': 'application/json; charset=utf-16le' })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    });

    it('UTF-32 and UTF-7 (not JSON encodings of RFC 8259) are refused as unreadable', async () => {
      const body = JSON.stringify(embedBody());
      const utf32le = Buffer.alloc(body.length * 4);
      [...body].forEach((char, index) => utf32le.writeUInt32LE(char.codePointAt(0) ?? 0, index * 4));
      expect(await send('POST', '/api/v3/orders/wtr-embed', utf32le, { 'content-type': 'application/json; charset=utf-32le' })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(await send('POST', '/api/v3/orders/wtr-embed', body, { 'content-type': 'application/json; charset=utf-7' })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });
  });

  it('a body that names a member twice in one object is refused (I-JSON), also escaped, nested or in UTF-16; distinct names pass', async () => {
    const refused = [
      '{"idempotencyKey":"k","idempotencyKey":"other","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}',
      '{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab","\\u0074ext":"cd"}]}]}',
    ];
    for (const body of refused) {
      expect(await send('POST', '/api/v3/orders/wtr-embed', Buffer.from(body))).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    }
    expect(await send('POST', '/api/v3/orders/wtr-embed', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(refused[0], 'utf16le')]), { 'content-type': 'application/json; charset=utf-16' })).toEqual({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
    expect(await send('POST', '/api/v3/orders/42/reports', Buffer.from('{"locale":"ko-KR","locale":"en-US"}'))).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(rpc.payloads).toEqual([]);
    expect(await json('POST', '/api/v3/orders/wtr-embed', embedBody({ files: [{ fileName: 'a.jpg', watermarks: [{ text: 'ab' }, { text: 'ab' }] }] }))).toEqual({ status: 200, body: { data: {} } });
    expect(rpc.payloads).toHaveLength(1);
  });

  describe('unknown fields named like Object.prototype members are refused like any unknown field', () => {
    const PROTOTYPE_NAMES = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__', '__proto__', 'constructor'];

    it('{"foo":1} is refused (the rule these names escaped)', async () => {
      expect(await json('POST', '/api/v3/orders/wtr-embed', embedBody({ foo: 1 }))).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    });

    it.each(PROTOTYPE_NAMES)('%s: at the top level, in a nested object, in an array item, on v3, v2, webhooks and reports', async (name) => {
      // Built as text: an object literal with `__proto__` would set a prototype, JSON.parse makes an own key.
      const field = `${JSON.stringify(name)}:"x"`;
      const requests: Array<[string, string, string]> = [
        ['POST', '/api/v3/orders/wtr-embed', `{"idempotencyKey":"k",${field},"files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}`],
        ['POST', '/api/v3/orders/wtr-embed', `{"idempotencyKey":"k","files":[{"fileName":"a.jpg",${field},"watermarks":[{"text":"ab"}]}]}`],
        ['POST', '/api/v3/orders/wtr-embed', `{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab",${field}}]}]}`],
        ['POST', '/api/v3/orders/wtr-extract', `{"idempotencyKey":"k",${field},"file":{"fileName":"b.png","originalFile":{"fileName":"a.png"}}}`],
        ['POST', '/api/v3/orders/wtr-extract', `{"idempotencyKey":"k","file":{"fileName":"b.png","originalFile":{"fileName":"a.png",${field}}}}`],
        ['POST', '/api/v2/orders/wtr-embed', `{"idempotencyKey":"k",${field},"files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}`],
        ['POST', '/api/v2/orders/webhooks', `{"name":"pp","url":"https://hooks.example.com/x",${field}}`],
        ['PUT', '/api/v2/orders/webhooks/3', `{"name":"pp","url":"https://hooks.example.com/x",${field}}`],
        ['POST', '/api/v2/orders/webhooks/3/events/retry-failed', `{"fromDate":"2026-02-01","toDate":"2026-02-02",${field}}`],
        ['POST', '/api/v3/orders/42/reports', `{"locale":"en-US",${field}}`],
      ];
      for (const [method, path, body] of requests) {
        expect([path, body, await send(method, path, body)]).toEqual([path, body, { status: 400, body: { code: 'VALIDATION_FAILED' } }]);
      }
      expect(rpc.payloads).toEqual([]);
    });

    it.each(PROTOTYPE_NAMES)('%s in a query is refused like any unknown query parameter', async (name) => {
      expect(await send('GET', `/api/v2/orders/stats/recent?date=2026-02-01&${encodeURIComponent(name)}=1`)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(await send('GET', `/api/v2/orders/webhooks/3/events?${encodeURIComponent(name)}=1`)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });

    it('a refused "__proto__" pollutes no prototype', async () => {
      await send('POST', '/api/v3/orders/wtr-embed', '{"idempotencyKey":"k","__proto__":{"polluted":true},"files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('impossible calendar dates are refused', () => {
    it.each(['2026-02-30', '2026-02-29', '2025-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-00-00', 'garbage'])('stats/recent?date=%s → 400', async (date) => {
      expect(await send('GET', `/api/v2/orders/stats/recent?date=${date}`)).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });

    it.each(['2028-02-29', '2026-02-28', '2026-12-31'])('stats/recent?date=%s (a real day) reaches the orders service', async (date) => {
      expect(await send('GET', `/api/v2/orders/stats/recent?date=${date}`)).toEqual({ status: 200, body: { data: {} } });
      expect(rpc.payloads).toEqual([{ caller: { accountId: '7', mode: 'test' }, date }]);
    });

    it.each([
      ['2026-02-30', '2026-03-01'],
      ['2026-02-01', '2026-02-31'],
      ['2026-02-30T10:00Z', '2026-03-01T10:00Z'],
      ['2026-02-27T24:00Z', '2026-03-01T00:00Z'],
      ['2026-02-27T10:60Z', '2026-03-01T00:00Z'],
      ['2026-02-27T10:00:60Z', '2026-03-01T00:00Z'],
      ['2026-02-27T10:00+24:00', '2026-03-01T00:00Z'],
      ['2026-02-27T10:00+01:60', '2026-03-01T00:00Z'],
    ])('webhook retry-failed from %s to %s → 400', async (fromDate, toDate) => {
      expect(await json('POST', '/api/v2/orders/webhooks/3/events/retry-failed', { fromDate, toDate })).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
    });

    it.each([
      ['2028-02-29', '2028-03-01'],
      ['2026-02-27T23:59:59.999Z', '2026-03-01T00:00+09:00'],
    ])('webhook retry-failed from %s to %s reaches the webhooks service', async (fromDate, toDate) => {
      expect((await json('POST', '/api/v2/orders/webhooks/3/events/retry-failed', { fromDate, toDate })).status).toBe(200);
      expect(rpc.payloads).toEqual([{ caller: { accountId: '7', mode: 'test' }, webhookId: 3, fromDate, toDate }]);
    });
  });

  it('reads a page and a limit of delivery events as decimal digits only (1e3 is not 1000)', async () => {
    expect((await send('GET', '/api/v2/orders/webhooks/3/events?page=2&limit=100')).status).toBe(200);
    expect(rpc.payloads).toEqual([expect.objectContaining({ webhookId: 3, page: 2, limit: 100 })]);
    for (const query of ['page=1e3', 'page=0x10', 'page=1.0', 'page=%205', 'limit=2e1', 'page=100001', 'limit=101']) {
      expect([query, await send('GET', `/api/v2/orders/webhooks/3/events?${query}`)]).toEqual([query, { status: 400, body: { code: 'VALIDATION_FAILED' } }]);
    }
    expect(rpc.payloads).toHaveLength(1);
  });

  it('reads the Bearer scheme in any case (RFC 9110: scheme names are case-insensitive), and nothing else as a key', async () => {
    const standard = await send('GET', '/api/v2/orders/1');
    expect(standard.status).not.toBe(401);
    expect(await send('GET', '/api/v2/orders/1', undefined, { authorization: `bearer ${KEY}` })).toEqual(standard);
    expect(await send('GET', '/api/v2/orders/1', undefined, { authorization: `BEARER ${KEY}` })).toEqual(standard);
    expect(rpc.payloads).toHaveLength(3);
    expect(await send('GET', '/api/v2/orders/1', undefined, { authorization: `Basic ${KEY}` })).toEqual({ status: 401, body: { code: 'AUTH_NOT_AUTHENTICATED' } });
    expect(await send('GET', '/api/v2/orders/1', undefined, { authorization: KEY })).toEqual({ status: 401, body: { code: 'AUTH_NOT_AUTHENTICATED' } });
  });

  describe('routes that take no body (spec 4.12 "No body") refuse one with fields, as unknown fields are refused elsewhere', () => {
    it.each([
      ['POST', '/api/v2/orders/18/refresh-urls'],
      ['DELETE', '/api/v2/orders/webhooks/1'],
      ['POST', '/api/v2/orders/webhooks/1/events/5/retry'],
    ])('%s %s', async (method, path) => {
      // With a declared length: Node's client frames no DELETE body by itself (its bytes would be a second request).
      const withBody = (body: string) => send(method, path, body, { 'content-length': String(Buffer.byteLength(body)) });
      expect(await withBody('{"x":1}')).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(await withBody('[]')).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      expect(rpc.payloads).toEqual([]);
      // none, or an empty object, reaches the service
      expect((await send(method, path)).status).toBeLessThan(300);
      expect((await withBody('{}')).status).toBeLessThan(300);
      expect(rpc.payloads.length).toBeGreaterThanOrEqual(2);
    });
  });

  it('the test-upload sink answers Expect: 100-continue itself: 313 MiB announced get 413 PAYLOAD_TOO_LARGE, no 100 Continue', async () => {
    const token = signUploadToken({ orderId: '12', fileId: '34', expiresAt: clock.nowMs() + 60_000 }, config.testUploadSecret);
    const upload = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}`, headers: { 'content-length': '314572800', expect: '100-continue' } });
    upload.on('error', () => undefined);
    let continued = false;
    upload.on('continue', () => {
      continued = true;
    });
    upload.flushHeaders();
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      const chunks: Buffer[] = [];
      for await (const chunk of response) {
        chunks.push(chunk as Buffer);
      }
      expect([response.statusCode, response.headers.connection, JSON.parse(Buffer.concat(chunks).toString('utf8'))]).toEqual([413, 'close', { code: 'PAYLOAD_TOO_LARGE' }]);
      expect(continued).toBe(false);
    } finally {
      upload.destroy();
    }
    expect(rpc.payloads).toEqual([]);
  });

  // Client review: unknown query parameters were refused only on the two routes with a query DTO; `?foo=1` passed
  // silently everywhere else (the spec documents no other parameter).
  describe('an unknown query parameter is refused on every authenticated route, with or without a query DTO', () => {
    const routes: Array<[string, string, string | undefined]> = [
      ['GET', '/api/v2/orders/42', undefined],
      ['POST', '/api/v2/orders/42/refresh-urls', undefined],
      ['GET', '/api/v2/orders/42/download-urls', undefined],
      ['GET', '/api/v3/orders/42/reports/en-US', undefined],
      ['POST', '/api/v3/orders/42/reports', '{"locale":"en-US"}'],
      ['GET', '/api/v2/orders/webhooks', undefined],
      ['GET', '/api/v2/orders/webhooks/3', undefined],
      ['DELETE', '/api/v2/orders/webhooks/3', undefined],
      ['POST', '/api/v2/orders/webhooks/3/events/5/retry', undefined],
      ['POST', '/api/v2/orders/webhooks', '{"name":"pp","url":"https://hooks.example.com/x"}'],
      ['POST', '/api/v3/orders/wtr-embed', '{"idempotencyKey":"k","files":[{"fileName":"a.jpg","watermarks":[{"text":"ab"}]}]}'],
      ['GET', '/api/v2/orders/stats/recent', undefined],
      ['GET', '/api/v2/orders/webhooks/3/events', undefined],
    ];

    it.each(routes)('%s %s: reaches the service without a query, 400 VALIDATION_FAILED with ?foo=1, ?foo, ?a[b]=1 and a typo', async (method, path, body) => {
      expect([200, 201]).toContain((await send(method, path, body)).status);
      expect(rpc.payloads).toHaveLength(1);
      for (const query of ['?foo=1', '?foo', '?a%5Bb%5D=1', '?limt=5']) {
        expect([query, await send(method, `${path}${query}`, body)]).toEqual([query, { status: 400, body: { code: 'VALIDATION_FAILED' } }]);
      }
      expect(rpc.payloads).toHaveLength(1);
    });

    it('an empty query (`?` alone) is no parameter; the documented ones still pass', async () => {
      expect((await send('GET', '/api/v2/orders/42?')).status).toBe(200);
      expect((await send('GET', '/api/v2/orders/stats/recent?date=2026-02-01')).status).toBe(200);
      expect((await send('GET', '/api/v2/orders/webhooks/3/events?page=2&limit=5&status=FAILED')).status).toBe(200);
      expect(rpc.payloads).toHaveLength(3);
    });
  });

  // Client review: the v2 read's `Link` was built from the path as sent, whatever it held.
  describe('deprecated routes: Deprecation on every answer of the route; Link never echoes the request', () => {
    it('a successful v2 read links the v3 order named by the id the service answered', async () => {
      rpc.answer = { orderId: '42' };
      const answer = await sendForHeaders('GET', '/api/v2/orders/42');
      expect([answer.status, answer.headers.deprecation, answer.headers.link, answer.headers.sunset]).toEqual([200, 'true', '</api/v3/orders/42>; rel="successor-version"', undefined]);
    });

    it.each([
      ['a leading zero', '/api/v2/orders/042'],
      ['an id beyond 64 bits', `/api/v2/orders/${'9'.repeat(20)}`],
      ['a very long segment', `/api/v2/orders/${'1'.repeat(4000)}`],
      ['percent-encoded characters', '/api/v2/orders/%3Cscript%3E%0D%0ALink:%20x'],
      ['characters no id has', "/api/v2/orders/a;b,c'<>"],
    ])('%s: 404 with Deprecation and no Link', async (_name, path) => {
      rpc.answer = { orderId: '42' };
      const answer = await sendForHeaders('GET', path);
      expect([answer.status, answer.body, answer.headers.deprecation, answer.headers.link]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }, 'true', undefined]);
      expect(rpc.payloads).toEqual([]);
    });

    it('another case of the path (Express routes it): the Link is spelled by the gateway, not copied from the path', async () => {
      rpc.answer = { orderId: '42' };
      const answer = await sendForHeaders('GET', '/API/V2/ORDERS/42/');
      expect([answer.status, answer.headers.link]).toEqual([200, '</api/v3/orders/42>; rel="successor-version"']);
    });

    it("another account's order (the service's 404): Deprecation, no Link", async () => {
      rpc.request = (): Promise<object> => Promise.reject(new DomainException(ErrorCode.RESOURCE_NOT_FOUND));
      try {
        const answer = await sendForHeaders('GET', '/api/v2/orders/43');
        expect([answer.status, answer.body, answer.headers.deprecation, answer.headers.link]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }, 'true', undefined]);
      } finally {
        rpc.request = RecordingRpc.prototype.request.bind(rpc);
      }
    });

    it('a 400 of the route (unknown query parameter, invalid body) carries Deprecation and the fixed successor', async () => {
      const read = await sendForHeaders('GET', '/api/v2/orders/42?foo=1');
      expect([read.status, read.headers.deprecation, read.headers.link]).toEqual([400, 'true', undefined]);
      const withUrls = await sendForHeaders('POST', '/api/v2/orders/anti-ai/with-urls?foo=1', '{}');
      expect([withUrls.status, withUrls.headers.deprecation, withUrls.headers.link]).toEqual([400, 'true', '</api/v2/orders/anti-ai>; rel="successor-version"']);
      const embed = await sendForHeaders('POST', '/API/V2/ORDERS/WTR-EMBED/', '{}');
      expect([embed.status, embed.headers.deprecation, embed.headers.sunset, embed.headers.link]).toEqual([400, 'true', 'Fri, 09 Oct 2026 00:00:00 GMT', '</api/v3/orders/wtr-embed>; rel="successor-version"']);
      expect(rpc.payloads).toEqual([]);
    });
  });

  // Spec 9.4: 410 "after the 401 and 403 checks"; a 429 first would tell the client to try again later.
  it('a retired v2 route answers 410 after authentication, without spending the rate limit; its Link is the v3 route as we spell it', async () => {
    const before = clock.now();
    clock.set(new Date('2026-10-09T00:00:00.000Z'));
    try {
      const counted = rateLimiter.consumed;
      const embed = await sendForHeaders('POST', '/api/v2/orders/WTR-Embed/', '{}');
      const extract = await sendForHeaders('POST', '/api/v2/orders/wtr-extract?foo=1', 'not json');
      expect([embed.status, embed.body, embed.headers.link, embed.headers['ratelimit-remaining']]).toEqual([410, { code: 'WATERMARK_V2_API_SUNSET' }, '</api/v3/orders/wtr-embed>; rel="successor-version"', undefined]);
      expect([extract.status, extract.body, extract.headers.link, extract.headers.sunset]).toEqual([410, { code: 'WATERMARK_V2_API_SUNSET' }, '</api/v3/orders/wtr-extract>; rel="successor-version"', 'Fri, 09 Oct 2026 00:00:00 GMT']);
      expect(rateLimiter.consumed).toBe(counted);
      const unauthenticated = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v2/orders/wtr-embed' });
      unauthenticated.end();
      const [response] = (await once(unauthenticated, 'response')) as [IncomingMessage];
      response.resume();
      expect(response.statusCode).toBe(401);
      expect((await send('GET', '/api/v2/orders/webhooks')).status).toBe(200);
      expect(rateLimiter.consumed).toBe(counted + 1);
    } finally {
      clock.set(before);
    }
  });

  describe('requests Node cannot parse get the same { code } body as every other refusal', () => {
    it('headers over 16 KiB: 431 with VALIDATION_FAILED (an empty body before)', async () => {
      expect(await send('GET', '/api/v3/orders/1', undefined, { 'x-padding': 'a'.repeat(20_000) })).toEqual({ status: 431, body: { code: 'VALIDATION_FAILED' } });
    });

    it('a broken request line: 400 with VALIDATION_FAILED', async () => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.end('GET /api/v3/orders/1 HTTP/1.1 nonsense\r\nHost: x\r\n\r\n');
      const chunks: Buffer[] = [];
      for await (const chunk of socket) {
        chunks.push(chunk as Buffer);
      }
      const [head, body] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n');
      expect([head.split('\r\n')[0], JSON.parse(body) as unknown]).toEqual(['HTTP/1.1 400 Bad Request', { code: 'VALIDATION_FAILED' }]);
    });
  });
});
