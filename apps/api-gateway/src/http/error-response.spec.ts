import { DomainException, ErrorCode } from '@cp/contracts';
import { ArgumentsHost, BadRequestException, HttpException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameDigest } from '@cp/gateway-data-access';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { apiKeyAuthMiddleware, isPublicPath } from '../auth/api-key-auth.middleware';
import { AuthenticatedKeyCache } from '../auth/authenticated-key-cache';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { ERROR_HTTP_STATUS, sendError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-response';
import { errorCodeFor, HttpExceptionFilter } from './http-exception.filter';

describe('error mapping', () => {
  it('gives every public code an HTTP status', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(ERROR_HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
    }
    expect(ERROR_HTTP_STATUS[ErrorCode.WATERMARK_V2_CONFLICT]).toBe(409);
    expect(ERROR_HTTP_STATUS[ErrorCode.WEBHOOK_LIMIT_REACHED]).toBe(409);
    expect(ERROR_HTTP_STATUS[ErrorCode.WATERMARK_V2_API_SUNSET]).toBe(410);
  });

  it('maps domain and framework exceptions to codes, anything else to SERVER_INTERNAL_ERROR', () => {
    expect(errorCodeFor(new DomainException(ErrorCode.ORDER_EXPIRED))).toBe(ErrorCode.ORDER_EXPIRED);
    expect(errorCodeFor(new NotFoundException())).toBe(ErrorCode.ROUTE_NOT_FOUND);
    expect(errorCodeFor(new BadRequestException())).toBe(ErrorCode.VALIDATION_FAILED);
    expect(errorCodeFor(new PayloadTooLargeException())).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(errorCodeFor(new HttpException('teapot', 418))).toBe(ErrorCode.SERVER_INTERNAL_ERROR);
    expect(errorCodeFor(new TypeError('x is undefined'))).toBe(ErrorCode.SERVER_INTERNAL_ERROR);
    // A corrupt compressed body as raw-body reports it (found by the API fuzzer: was a 500).
    expect(errorCodeFor(Object.assign(new Error('Decompression failed'), { status: 400, expose: true }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(errorCodeFor(Object.assign(new Error('too large'), { status: 413, expose: true }))).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(errorCodeFor(Object.assign(new Error('internal'), { status: 500, expose: false }))).toBe(ErrorCode.SERVER_INTERNAL_ERROR);
  });
});

describe('infrastructure unavailable → 503 with Retry-After', () => {
  /** A response that records what `sendError` does to it. */
  const recorder = () => {
    const headers = new Map<string, string>();
    const sent: { status?: number; body?: unknown } = {};
    const response = {
      headersSent: false,
      hasHeader: (name: string) => headers.has(name.toLowerCase()),
      setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value),
      status(status: number) {
        sent.status = status;
        return this;
      },
      json(body: unknown) {
        sent.body = body;
        return this;
      },
    };
    return { response: response as unknown as Response, headers, sent };
  };

  it.each([
    ['pg-pool cannot give a connection in time', new Error('timeout exceeded when trying to connect')],
    ['the database refuses connections', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })],
    ['the database is shutting down (57P01)', new QueryFailedError('SELECT 1', [], Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))],
    ['the database is starting up (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
  ])('%s is WATERMARK_V2_UNAVAILABLE', (_name, error) => {
    expect(errorCodeFor(error)).toBe(ErrorCode.WATERMARK_V2_UNAVAILABLE);
  });

  it('a statement cancelled by its timeout or a constraint violation stays a 500 (the request, not the infrastructure)', () => {
    expect(errorCodeFor(new QueryFailedError('SELECT', [], Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })))).toBe(
      ErrorCode.SERVER_INTERNAL_ERROR,
    );
    expect(errorCodeFor(new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' })))).toBe(ErrorCode.SERVER_INTERNAL_ERROR);
  });

  it('a 503 carries Retry-After (a 429 keeps its own, a 500 has none)', () => {
    const unavailable = recorder();
    sendError(unavailable.response, ErrorCode.WATERMARK_V2_UNAVAILABLE);
    expect(unavailable.sent).toEqual({ status: 503, body: { code: ErrorCode.WATERMARK_V2_UNAVAILABLE } });
    expect(unavailable.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    const internal = recorder();
    sendError(internal.response, ErrorCode.SERVER_INTERNAL_ERROR);
    expect(internal.sent.status).toBe(500);
    expect(internal.headers.has('retry-after')).toBe(false);
  });

  it('authentication whose key lookup meets a database without connections answers 503 with Retry-After', async () => {
    const keys = { authenticate: () => Promise.reject(new Error('timeout exceeded when trying to connect')) } as unknown as AuthenticatedKeyCache;
    const middleware = apiKeyAuthMiddleware(keys, {} as RateLimiterService);
    const { response, headers, sent } = recorder();
    const next = jest.fn();
    middleware({ path: '/api/v3/orders/1', headers: { authorization: `Bearer ${generateApiKey('live')}` } } as Request, response, next);
    await new Promise((resolve) => setImmediate(resolve));
    expect(next).not.toHaveBeenCalled();
    expect(sent).toEqual({ status: 503, body: { code: ErrorCode.WATERMARK_V2_UNAVAILABLE } });
    expect(headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  });

  // RFC 9110 11.6.1: a 401 without a challenge left clients (and HTTP libraries) without the scheme to use.
  it('a 401, missing key or refused one, names the Bearer scheme in WWW-Authenticate; other errors do not', async () => {
    const middleware = apiKeyAuthMiddleware({ authenticate: () => Promise.resolve(undefined) } as unknown as AuthenticatedKeyCache, {} as RateLimiterService);
    const missing = recorder();
    middleware({ path: '/api/v3/orders/1', headers: {} } as Request, missing.response, jest.fn());
    const unknown = recorder();
    middleware({ path: '/api/v3/orders/1', headers: { authorization: `Bearer ${generateApiKey('live')}` } } as Request, unknown.response, jest.fn());
    await new Promise((resolve) => setImmediate(resolve));
    for (const { sent, headers } of [missing, unknown]) {
      expect([sent.status, sent.body, headers.get('www-authenticate')]).toEqual([401, { code: 'AUTH_NOT_AUTHENTICATED' }, 'Bearer realm="api"']);
    }
    const notFound = recorder();
    sendError(notFound.response, ErrorCode.RESOURCE_NOT_FOUND);
    expect(notFound.headers.has('www-authenticate')).toBe(false);
  });

  it('a refusal that says when to try again answers with Retry-After; one that does not, without', () => {
    const filter = new HttpExceptionFilter();
    const hostOf = (response: Response) => ({ switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'r1' }) }) }) as unknown as ArgumentsHost;
    const later = recorder();
    filter.catch(new DomainException(ErrorCode.RATE_LIMIT_EXCEEDED, 'test orders of the day used up', 3600), hostOf(later.response));
    expect([later.sent.status, later.sent.body, later.headers.get('retry-after')]).toEqual([429, { code: 'RATE_LIMIT_EXCEEDED' }, '3600']);
    const plain = recorder();
    filter.catch(new DomainException(ErrorCode.VALIDATION_FAILED), hostOf(plain.response));
    expect([plain.sent.status, plain.headers.has('retry-after')]).toEqual([400, false]);
  });
});

describe('API keys', () => {
  it('issues live and test keys that look like keys and hash stably', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(test).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeApiKey(live) && looksLikeApiKey(test)).toBe(true);
    expect(looksLikeApiKey('pk_live_abc')).toBe(false);
    expect(hashApiKey(live)).toMatch(/^[0-9a-f]{64}$/);
    expect(sameDigest(hashApiKey(live), hashApiKey(live))).toBe(true);
    expect(sameDigest(hashApiKey(live), hashApiKey(test))).toBe(false);
  });

  it('leaves only operator endpoints, docs and the test-upload sink without a key', () => {
    expect(['/health', '/ready', '/metrics', '/api/docs', '/api/docs-json', '/api/v2/test-uploads/abc.def'].every(isPublicPath)).toBe(true);
    expect(['/api/v3/orders/1', '/api/v2/orders/webhooks', '/api/v2/test-uploads/a/b', '/healthz'].some(isPublicPath)).toBe(false);
  });
});
