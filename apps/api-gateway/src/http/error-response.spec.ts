import { DomainException, ErrorCode } from '@cp/contracts';
import { BadRequestException, HttpException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameDigest } from '@cp/gateway-data-access';
import { isPublicPath } from '../auth/api-key-auth.middleware';
import { ERROR_HTTP_STATUS } from './error-response';
import { errorCodeFor } from './http-exception.filter';

describe('error mapping', () => {
  it('gives every public code an HTTP status', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(ERROR_HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
    }
    expect(ERROR_HTTP_STATUS[ErrorCode.WATERMARK_V2_CONFLICT]).toBe(409);
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
