import { AuthenticatedKey } from '@cp/gateway-data-access';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { CallerContext } from '@cp/contracts';

export interface AuthenticatedRequest extends Request {
  caller?: AuthenticatedKey;
}

/** The account and key mode behind the request (set by the API key middleware). */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): CallerContext => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.caller) {
    throw new Error('route reached without authentication');
  }
  return { accountId: request.caller.accountId, mode: request.caller.mode };
});
