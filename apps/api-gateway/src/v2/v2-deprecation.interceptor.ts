import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, isV2Retired, V2_SUNSET_HTTP_DATE } from '@cp/contracts';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Observable } from 'rxjs';

/** The v3 successor of each deprecated v2 route (the `Link` header, rel="successor-version"). */
function successorOf(path: string): string {
  if (path.endsWith('/wtr-embed')) {
    return '/api/v3/orders/wtr-embed';
  }
  if (path.endsWith('/wtr-extract')) {
    return '/api/v3/orders/wtr-extract';
  }
  return path.replace('/api/v2/orders/', '/api/v3/orders/');
}

function setDeprecationHeaders(request: Request, response: Response, sunset: boolean): void {
  response.setHeader('Deprecation', 'true');
  if (sunset) {
    response.setHeader('Sunset', V2_SUNSET_HTTP_DATE);
  }
  response.setHeader('Link', `<${successorOf(request.path)}>; rel="successor-version"`);
}

/**
 * Spec 9.3/9.4 for the v2 watermark embed and extract routes: every response (errors included, the
 * headers are set before validation runs) carries Deprecation, Sunset and Link; from the retirement time
 * the answer is 410 WATERMARK_V2_API_SUNSET for live and test keys. Auth (401/403) ran before, in the
 * middleware, and body validation runs after this, so a retired route never reports a 400.
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

/** Spec 9.2: `GET /api/v2/orders/{orderId}` is deprecated (no sunset): Deprecation and Link to the v3 read. */
@Injectable()
export class V2DeprecatedInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    setDeprecationHeaders(http.getRequest<Request>(), http.getResponse<Response>(), false);
    return next.handle();
  }
}
