import { ErrorCode, ErrorView } from '@cp/contracts';
import { noteHttpErrorCode } from '@cp/tracing';
import type { Response } from 'express';

/** The one mapping from public error code to HTTP status; a new code fails to compile until it is mapped. */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.VALIDATION_FAILED]: 400,
  [ErrorCode.ORDER_EXPIRED]: 400,
  [ErrorCode.AUTH_NOT_AUTHENTICATED]: 401,
  [ErrorCode.USAGE_LIMIT_EXCEEDED]: 402,
  [ErrorCode.REPORT_NOT_FOUND]: 404,
  [ErrorCode.RESOURCE_NOT_FOUND]: 404,
  [ErrorCode.ROUTE_NOT_FOUND]: 404,
  [ErrorCode.WEBHOOK_NOT_FOUND]: 404,
  [ErrorCode.WATERMARK_V2_CONFLICT]: 409,
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: 409,
  [ErrorCode.WATERMARK_V2_API_SUNSET]: 410,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.RATE_LIMIT_EXCEEDED]: 429,
  [ErrorCode.SERVER_INTERNAL_ERROR]: 500,
  [ErrorCode.WATERMARK_V2_UNAVAILABLE]: 503,
};

/**
 * `Retry-After` of a 503: a database or service that is down or out of connections is usually back within
 * seconds (a pool frees up, a replica restarts); a client that waits this long before retrying does not add to
 * the load that made it unavailable.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * `WWW-Authenticate` of every 401: RFC 9110 (11.6.1) requires a challenge on a 401, and HTTP clients and
 * libraries that follow it (retrying with credentials, or telling a missing key from a refused one) need the
 * scheme it names. RFC 6750's bearer scheme, without detail: a missing, malformed, unknown and revoked key
 * are one answer (`AUTH_NOT_AUTHENTICATED`), so the challenge says no more than the body.
 */
export const AUTHENTICATE_CHALLENGE = 'Bearer realm="api"';

export function sendError(response: Response, code: ErrorCode): void {
  if (response.headersSent) {
    return;
  }
  const status = ERROR_HTTP_STATUS[code];
  noteHttpErrorCode(response, code);
  if (status === 401) {
    response.setHeader('WWW-Authenticate', AUTHENTICATE_CHALLENGE);
  }
  if (status === 503 && !response.hasHeader('Retry-After')) {
    response.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  }
  const body: ErrorView = { code };
  response.status(status).json(body);
}
