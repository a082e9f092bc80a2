import { DomainException, ErrorCode } from '@cp/contracts';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * For the routes that take no body (refresh-urls, spec 4.12 "No body"; deleting a webhook; retrying one event):
 * none, or an empty JSON object, is accepted; anything else is 400 `VALIDATION_FAILED`, as an unknown field is on
 * every route with a body (a client sending fields it believes are read must learn that they are not).
 */
export const NoBody = createParamDecorator((_: unknown, context: ExecutionContext): undefined => {
  const body = context.switchToHttp().getRequest<Request>().body as unknown;
  const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (!empty) {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, 'this route takes no body');
  }
  return undefined;
});
