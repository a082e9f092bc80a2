import { ErrorCode } from '@cp/contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AUTHENTICATE_CHALLENGE, ERROR_HTTP_STATUS, UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-response';

/** The `{orderId}` path parameter of every order route (spec: digits, at most 20). */
export const ORDER_ID_PARAM = { name: 'orderId', schema: { type: 'string', pattern: '^[0-9]{1,20}$' }, example: '42' } as const;

/**
 * Codes every authenticated route can answer with: an unknown query parameter (`QueryParametersGuard`), auth,
 * rate limit, internal error, a service that does not answer in time.
 */
const ALWAYS: readonly ErrorCode[] = [
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.AUTH_NOT_AUTHENTICATED,
  ErrorCode.RATE_LIMIT_EXCEEDED,
  ErrorCode.SERVER_INTERNAL_ERROR,
  ErrorCode.WATERMARK_V2_UNAVAILABLE,
];

const ERROR_MEANINGS: Record<ErrorCode, string> = {
  [ErrorCode.VALIDATION_FAILED]: 'invalid request: a body, path or query parameter that fails validation, an unknown body field or query parameter (also a download before the order is complete)',
  [ErrorCode.ORDER_EXPIRED]: 'the retention period has ended',
  [ErrorCode.AUTH_NOT_AUTHENTICATED]: 'missing or invalid API key',
  [ErrorCode.USAGE_LIMIT_EXCEEDED]: 'not enough credits',
  [ErrorCode.REPORT_NOT_FOUND]: 'no report was requested for that locale',
  [ErrorCode.RESOURCE_NOT_FOUND]: 'no such resource for this account',
  [ErrorCode.ROUTE_NOT_FOUND]: 'no such route',
  [ErrorCode.WEBHOOK_NOT_FOUND]: 'no such order (code as published for refresh-urls)',
  [ErrorCode.WATERMARK_V2_CONFLICT]: 'same idempotencyKey with a different body',
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: 'the account has the most webhooks its key mode may have; delete one first',
  [ErrorCode.WATERMARK_V2_API_SUNSET]: 'v2 watermark endpoint called after its retirement',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'body larger than the configured limit',
  [ErrorCode.RATE_LIMIT_EXCEEDED]: 'per-plan request rate exceeded (wait `Retry-After` seconds), or, creating a test-key order, the account\'s test orders of the last 24 hours used up (`TEST_ORDERS_PER_DAY`)',
  [ErrorCode.SERVER_INTERNAL_ERROR]: 'internal error',
  [ErrorCode.WATERMARK_V2_UNAVAILABLE]:
    'temporarily unavailable: a service, the database or its connection pool does not answer in time; retry after `Retry-After` seconds',
};

const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description: 'seconds until capacity comes back, so that a request sent then is admitted: for the plan\'s rate the same value as `RateLimit-Reset` (1–60); for the test orders of the day, until the oldest of them is 24 hours old',
    schema: { type: 'integer', minimum: 1, example: 12 },
  },
};

const UNAVAILABLE_RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', example: UNAVAILABLE_RETRY_AFTER_SECONDS } },
};

const AUTHENTICATE_HEADER = {
  'WWW-Authenticate': { description: 'the authentication scheme to use (RFC 9110 11.6.1)', schema: { type: 'string', example: AUTHENTICATE_CHALLENGE } },
};

/** Headers documented with an error status. */
const ERROR_HEADERS = new Map<number, Record<string, { description: string; schema: SchemaObject }>>([
  [401, AUTHENTICATE_HEADER],
  [429, RETRY_AFTER_HEADER],
  [503, UNAVAILABLE_RETRY_AFTER_HEADER],
]);

/** A successful `{ data }` response whose payload is the named component schema (see openapi-schemas.ts). */
export function ApiData(
  schema: string,
  options: { status?: number; description: string; array?: boolean; headers?: Record<string, { description: string; schema: SchemaObject }> },
): MethodDecorator {
  const item: ReferenceObject = { $ref: `#/components/schemas/${schema}` };
  return ApiResponse({
    status: options.status ?? 200,
    description: options.description,
    headers: options.headers,
    schema: { type: 'object', required: ['data'], properties: { data: options.array ? { type: 'array', items: item } : item } },
  });
}

/**
 * The error responses of a route, grouped by HTTP status through the one exhaustive table of the gateway,
 * each code listed in the schema's enum with an example.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return errorResponses([...codes, ...ALWAYS]);
}

/** The same for the routes authorized by a signed token instead of an API key (no 401, no rate limit). */
export function ApiTokenRouteErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return errorResponses([...codes, ErrorCode.SERVER_INTERNAL_ERROR, ErrorCode.WATERMARK_V2_UNAVAILABLE]);
}

function errorResponses(codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const decorators = [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, group]) =>
      ApiResponse({
        status,
        description: group.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code]}`).join('; '),
        headers: ERROR_HEADERS.get(status),
        content: {
          'application/json': {
            schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { code: { type: 'string', enum: group } } }] },
            examples: Object.fromEntries(group.map((code) => [code, { value: { code } }])),
          },
        },
      }),
    );
  return applyDecorators(...decorators);
}
