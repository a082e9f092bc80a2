import { Clock } from '@cp/clock';
import { DomainException, ErrorCode } from '@cp/contracts';
import { verifyUploadToken } from '@cp/storage';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { closeWithoutReading } from './test-upload-body.reader';

/**
 * The test-upload sink is anonymous: its token (signature and expiry, from the path) is checked before a
 * single byte of the body is read. A refused request gets the same public code as an unknown slot, and its
 * connection is closed after the answer (a lingering close, see `closeWithoutReading`), so an unread (or endless)
 * body is never counted, and a client still writing it reads the 404 rather than a reset.
 */
@Injectable()
export class TestUploadTokenGuard implements CanActivate {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'testUploadSecret'>,
    private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const param: unknown = http.getRequest<Request>().params.token;
    const token = typeof param === 'string' ? param : '';
    if (verifyUploadToken(token, this.config.testUploadSecret, this.clock.nowMs())) {
      return true;
    }
    closeWithoutReading(http.getRequest<Request>(), http.getResponse<Response>());
    throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'invalid or expired test upload token');
  }
}
