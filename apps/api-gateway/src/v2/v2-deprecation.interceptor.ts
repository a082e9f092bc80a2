import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, isV2Retired, V2_SUNSET_HTTP_DATE } from '@cp/contracts';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Observable } from 'rxjs';
import { sendError } from '../http/error-response';

/** The v3 successor of each deprecated v2 route (the `Link` header, rel="successor-version"). */
function successorOf(path: string): string {
  if (path.endsWith('/wtr-embed')) {
    return '/api/v3/orders/wtr-embed';
  }
  if (/\/anti-ai\/with-urls\/?$/i.test(path)) {
    return '/api/v2/orders/anti-ai';
  }
  if (path.endsWith('/wtr-extract')) {
    return '/api/v3/orders/wtr-extract';
  }
  return path.replace('/api/v2/orders/', '/api/v3/orders/');
}

export function setDeprecationHeaders(request: Request, response: Response, sunset: boolean): void {
  response.setHeader('Deprecation', 'true');
  if (sunset) {
    response.setHeader('Sunset', V2_SUNSET_HTTP_DATE);
  }
  response.setHeader('Link', `<${successorOf(request.path)}>; rel="successor-version"`);
}

/** The v2 watermark embed and extract routes, as Express matches them (case-insensitive, optional trailing slash). */
const V2_SUNSET_ROUTE = /^\/api\/v2\/orders\/wtr-(embed|extract)\/?$/i;

/**
 * Spec 9.4, before body parsing: once retired, `POST` to a v2 watermark route is 410
 * WATERMARK_V2_API_SUNSET for live and test keys, right after the 401/403 checks of the auth middleware,
 * whatever the body (not JSON, too large or invalid: never a 400 or 413 first).
 */
export function v2SunsetMiddleware(clock: Clock) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (request.method === 'POST' && V2_SUNSET_ROUTE.test(request.path) && isV2Retired(clock.now())) {
      setDeprecationHeaders(request, response, true);
      sendError(response, ErrorCode.WATERMARK_V2_API_SUNSET);
      return;
    }
    next();
  };
}

/**
 * Spec 9.3 for the v2 watermark embed and extract routes before their retirement: every response (errors
 * included, the headers are set before validation runs) carries Deprecation, Sunset and Link. After it,
 * `v2SunsetMiddleware` answers before the body is read; the check here covers the instant in between.
 */
@Injectable()
export class V2SunsetInterceptor implements NestInterceptor {
  constructor(private readonly clock: Clock) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    setDeprecationHeaders(http.getRequest<Request>(), http.getResponse<Response>(), true);
    if (isV2Retired(this.clock.now())) {
      throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET, 'v2 watermark endpoints are retired');
    }
    return next.handle();
  }
}

/**
 * Spec 9.2: `GET /api/v2/orders/{orderId}` and `POST /api/v2/orders/anti-ai/with-urls` are deprecated (no
 * sunset): Deprecation and a Link to the successor (the v3 read; the standard anti-AI endpoint).
 */
@Injectable()
export class V2DeprecatedInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    setDeprecationHeaders(http.getRequest<Request>(), http.getResponse<Response>(), false);
    return next.handle();
  }
}
