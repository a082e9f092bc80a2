import { DomainException, ErrorCode } from '@cp/contracts';
import { isDatabaseUnavailableError } from '@cp/database';
import { LoggedRequest } from '@cp/logging';
import { isTransientInfrastructureError } from '@cp/messaging';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { sendError } from './error-response';

/** Errors raised by the framework itself (unknown route, parsers) by HTTP status. */
const FRAMEWORK_STATUS_CODES = new Map<number, ErrorCode>([
  [404, ErrorCode.ROUTE_NOT_FOUND],
  [405, ErrorCode.ROUTE_NOT_FOUND],
  [413, ErrorCode.PAYLOAD_TOO_LARGE],
  [400, ErrorCode.VALIDATION_FAILED],
  [415, ErrorCode.VALIDATION_FAILED],
]);

/**
 * The infrastructure, not the request, failed: the database down or its pool out of connections, a broker or
 * storage connection refused or reset. Retrying later succeeds, so the answer is 503 with `Retry-After`, not 500.
 * The consumers' test (`isTransientInfrastructureError`) and the database's own patterns (pg-pool's connect
 * timeout, SQLSTATE classes 08 and 57P) together.
 */
export function isInfrastructureUnavailable(exception: unknown): boolean {
  return isTransientInfrastructureError(exception) || isDatabaseUnavailableError(exception);
}

/** Every error path of the HTTP API ends here as `{ code }`; internal messages are only logged. */
export function errorCodeFor(exception: unknown): ErrorCode {
  if (exception instanceof DomainException) {
    return exception.code;
  }
  if (isInfrastructureUnavailable(exception)) {
    return ErrorCode.WATERMARK_V2_UNAVAILABLE;
  }
  if (exception instanceof HttpException) {
    return FRAMEWORK_STATUS_CODES.get(exception.getStatus()) ?? ErrorCode.SERVER_INTERNAL_ERROR;
  }
  // http-errors style errors of Express middleware (body reading, decompression): exposed 4xx are the client's.
  const { status, expose } = (exception ?? {}) as { status?: unknown; expose?: unknown };
  if (expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    return FRAMEWORK_STATUS_CODES.get(status) ?? ErrorCode.VALIDATION_FAILED;
  }
  return ErrorCode.SERVER_INTERNAL_ERROR;
}

@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const code = errorCodeFor(exception);
    const http = host.switchToHttp();
    if (code === ErrorCode.SERVER_INTERNAL_ERROR) {
      this.logger.error({ err: exception, reqId: http.getRequest<LoggedRequest>().id }, 'unexpected error');
    } else if (!(exception instanceof DomainException) && code === ErrorCode.WATERMARK_V2_UNAVAILABLE) {
      this.logger.warn({ err: exception, reqId: http.getRequest<LoggedRequest>().id }, 'infrastructure unavailable; answered 503');
    }
    const response = http.getResponse<Response>();
    if (exception instanceof DomainException && exception.retryAfterSeconds !== undefined) {
      response.setHeader('Retry-After', String(exception.retryAfterSeconds));
    }
    sendError(response, code);
  }
}
