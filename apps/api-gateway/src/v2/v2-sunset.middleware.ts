import { Clock } from '@cp/clock';
import { ErrorCode, isV2Retired } from '@cp/contracts';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from '../http/error-response';
import { setDeprecationHeaders } from './deprecated-route.guard';

/** The v2 watermark embed and extract routes, as Express matches them (case-insensitive, optional trailing slash). */
const V2_SUNSET_ROUTE = /^\/api\/v2\/orders\/wtr-(embed|extract)\/?$/i;

/**
 * Spec 9.4, right after authentication and before the rate limit and body parsing: once retired, `POST` to a v2
 * watermark route is 410 WATERMARK_V2_API_SUNSET for live and test keys, whatever the body (not JSON, too large or
 * invalid: never a 400 or 413 first), and it does not spend the caller's rate limit (a permanent answer that
 * costs no work; a 429 would tell the client to try again later). Its `Link` names the v3 route (spec 7) as this
 * gateway spells it, whatever case or trailing slash the request used.
 */
export function isRetiredV2Request(request: Request, clock: Clock): { successor: string } | null {
  const match = request.method === 'POST' ? V2_SUNSET_ROUTE.exec(request.path) : null;
  if (!match || !isV2Retired(clock.now())) {
    return null;
  }
  return { successor: `/api/v3/orders/wtr-${match[1].toLowerCase()}` };
}

/** Right after the auth middleware, which lets these requests through without counting them (`unmetered`). */
export function v2SunsetMiddleware(clock: Clock) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const retired = isRetiredV2Request(request, clock);
    if (retired) {
      setDeprecationHeaders(response, { sunset: true, successor: retired.successor });
      sendError(response, ErrorCode.WATERMARK_V2_API_SUNSET);
      return;
    }
    next();
  };
}
