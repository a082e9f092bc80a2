import { ErrorCode } from '@cp/contracts';
import { looksLikeApiKey } from '@cp/gateway-data-access';
import { LoggedRequest } from '@cp/logging';
import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from '../http/error-response';
import { errorCodeFor } from '../http/http-exception.filter';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { AuthenticatedKeyCache } from './authenticated-key-cache';
import { AuthenticatedRequest } from './caller';

/** Routes that carry their own authorisation or are for operators, not API clients. */
const TEST_UPLOAD_PATH = /^\/api\/v2\/test-uploads\/[^/]+$/;
// Stored results relayed with their presigned query: storage checks that signature (see results/).
const RESULT_PATH = /^\/api\/v2\/results\/[^/]+\/.+$/;
// /drain answers only loopback callers (the pod's own preStop hook), see libs/health.
const PUBLIC_PATHS = [/^\/health$/, /^\/ready$/, /^\/metrics$/, /^\/drain$/, /^\/api\/docs(-json)?(\/.*)?$/, TEST_UPLOAD_PATH, RESULT_PATH];

export function isTestUploadPath(path: string): boolean {
  return TEST_UPLOAD_PATH.test(path);
}

export function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.some((pattern) => pattern.test(path));
}

/**
 * First step of every API request, before body parsing and routing: Bearer key → account, then the
 * per-plan rate limit. 401 for a missing, malformed, unknown or revoked key on every route. `unmetered`: requests
 * that the next middleware answers at once with a permanent refusal (a retired v2 route's 410): authenticated, but
 * not counted, so they never spend the caller's rate limit nor get a 429 instead of their 410.
 */
export function apiKeyAuthMiddleware(keys: AuthenticatedKeyCache, rateLimiter: RateLimiterService, unmetered: (request: Request) => boolean = () => false) {
  const logger = new Logger('Auth');
  return (request: Request, response: Response, next: NextFunction): void => {
    if (isPublicPath(request.path)) {
      next();
      return;
    }
    const header = request.headers.authorization;
    // The scheme's name is case-insensitive (RFC 9110 11.1): `bearer sk_…` is the same credential.
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/i.exec(header) : null;
    if (!match || !looksLikeApiKey(match[1])) {
      sendError(response, ErrorCode.AUTH_NOT_AUTHENTICATED);
      return;
    }
    void (async () => {
      const caller = await keys.authenticate(match[1]);
      if (!caller) {
        sendError(response, ErrorCode.AUTH_NOT_AUTHENTICATED);
        return;
      }
      (request as AuthenticatedRequest).caller = caller;
      if (unmetered(request)) {
        next();
        return;
      }
      const decision = await rateLimiter.consume(caller.accountId, caller.plan);
      response.setHeader('RateLimit-Limit', String(decision.limit));
      response.setHeader('RateLimit-Remaining', String(decision.remaining));
      response.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) {
        response.setHeader('Retry-After', String(decision.resetSeconds));
        sendError(response, ErrorCode.RATE_LIMIT_EXCEEDED);
        return;
      }
      next();
    })().catch((error: unknown) => {
      // The key lookup and the rate limit read the database: when it is down or out of connections, 503 with Retry-After.
      const code = errorCodeFor(error);
      logger.error({ err: error, reqId: (request as LoggedRequest).id, code }, 'authentication failed unexpectedly');
      sendError(response, code);
    });
  };
}
