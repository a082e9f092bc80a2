import { DomainException, ErrorCode } from '@cp/contracts';
import { CanActivate, ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';

/**
 * Unknown query parameters are refused on every authenticated route, as unknown body fields are: a typo such as
 * `?limt=5` never passes silently. A route that takes a query declares it with `@Query()` and a DTO, whose
 * whitelist judges each parameter (`GatewayValidationPipe`); on every other route, any parameter is unknown (the
 * spec documents none). `isExempt` leaves the public paths alone: the results relay's query is storage's presigned
 * signature and the test-upload sink stands in for storage's presigned PUT.
 *
 * Cost on the hot path: a request without `?` returns after one `includes`; the per-handler answer is computed once.
 */
export class QueryParametersGuard implements CanActivate {
  private readonly declared = new WeakMap<object, boolean>();

  constructor(private readonly isExempt: (path: string) => boolean) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.url.includes('?') || this.takesQuery(context) || this.isExempt(request.path)) {
      return true;
    }
    if (Object.keys(request.query).length > 0) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'unknown query parameter');
    }
    return true;
  }

  /** Whether the handler has a `@Query()` parameter (the whole query, judged by its DTO). */
  private takesQuery(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let known = this.declared.get(handler);
    if (known === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      // Keys are `<paramtype>:<index>`.
      known = Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.QUERY));
      this.declared.set(handler, known);
    }
    return known;
  }
}
