import { DomainException, ErrorCode } from '@cp/contracts';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { sendError } from './error-response';

/** Every error path of the HTTP API ends here as `{ code }`; internal messages are only logged. */
export function errorCodeFor(exception: unknown): ErrorCode {
  if (exception instanceof DomainException) {
    return exception.code;
  }
  if (exception instanceof HttpException) {
    switch (exception.getStatus()) {
      case HttpStatus.NOT_FOUND:
      case HttpStatus.METHOD_NOT_ALLOWED:
        return ErrorCode.ROUTE_NOT_FOUND;
      case HttpStatus.PAYLOAD_TOO_LARGE:
        return ErrorCode.PAYLOAD_TOO_LARGE;
      case HttpStatus.BAD_REQUEST:
      case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
        return ErrorCode.VALIDATION_FAILED;
      default:
        return ErrorCode.SERVER_INTERNAL_ERROR;
    }
  }
  return ErrorCode.SERVER_INTERNAL_ERROR;
}

@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const code = errorCodeFor(exception);
    if (code === ErrorCode.SERVER_INTERNAL_ERROR) {
      this.logger.error({ err: exception }, 'unexpected error');
    }
    sendError(host.switchToHttp().getResponse<Response>(), code);
  }
}
