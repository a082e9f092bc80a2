import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, isV2Retired, V2_SUNSET_HTTP_DATE } from '@cp/contracts';
import { CanActivate, ExecutionContext, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';

export interface DeprecatedRouteOptions {
  /** A v2 watermark route that stops at the v2 retirement (spec 9.3, 9.4): `Sunset` on its answers, 410 after it. */
  sunset: boolean;
  /**
   * The successor route (`Link`, rel="successor-version") when it is one fixed route, sent on every answer. Null
   * when the successor names the resource read (`/api/v3/orders/{orderId}`): that `Link` is set on a successful
   * answer only, from the id the service answered with (`V2OrderLinkInterceptor`), never from the path as sent.
   */
  successor: string | null;
}

const DEPRECATED_ROUTE = 'cp:deprecated-route';

/** Marks a deprecated route; `DeprecatedRouteGuard` sets its headers on every answer from the route on. */
export const DeprecatedRoute = (options: DeprecatedRouteOptions): MethodDecorator => SetMetadata(DEPRECATED_ROUTE, options);

/** `Link` to a successor: only fixed routes or ids the service issued reach it, never a path as the client sent it. */
export function successorLink(route: string): string {
  return `<${route}>; rel="successor-version"`;
}

export function setDeprecationHeaders(response: Response, { sunset, successor }: DeprecatedRouteOptions): void {
  response.setHeader('Deprecation', 'true');
  if (sunset) {
    response.setHeader('Sunset', V2_SUNSET_HTTP_DATE);
  }
  if (successor !== null) {
    response.setHeader('Link', successorLink(successor));
  }
}

/**
 * Spec 9.2 and 9.3: a deprecated route says so on every answer it gives once the request reached it, its errors
 * included (400 of an unknown query parameter or an invalid body, 404 of an unknown order): RFC 9745's
 * `Deprecation` is about the resource the request names, whatever the outcome, and a client whose calls fail
 * needs to learn it most. A global guard registered before every other guard and pipe, so no refusal of the route
 * comes without it. Answers given before routing (401, 429, the input hygiene's 400, 413) are the edge's, not
 * the route's, and do not carry it. After the v2 retirement a sunset route is 410 (`v2SunsetMiddleware` answers
 * first, before the body is read; this covers the instant in between).
 */
export class DeprecatedRouteGuard implements CanActivate {
  /** Per handler, read once: the metadata lookup costs about ten times the rest of this guard on every request. */
  private readonly routes = new WeakMap<object, DeprecatedRouteOptions | null>();

  constructor(
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let options = this.routes.get(handler);
    if (options === undefined) {
      options = this.reflector.get<DeprecatedRouteOptions | undefined>(DEPRECATED_ROUTE, handler) ?? null;
      this.routes.set(handler, options);
    }
    if (options === null) {
      return true;
    }
    setDeprecationHeaders(context.switchToHttp().getResponse<Response>(), options);
    if (options.sunset && isV2Retired(this.clock.now())) {
      throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET, 'v2 watermark endpoints are retired');
    }
    return true;
  }
}
