import { ErrorCode } from '@cp/contracts';
import type { Response } from 'express';

/** The one mapping from public error code to HTTP status; a new code fails to compile until it is mapped. */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.VALIDATION_FAILED]: 400,
  [ErrorCode.ORDER_EXPIRED]: 400,
  [ErrorCode.AUTH_NOT_AUTHENTICATED]: 401,
  [ErrorCode.USAGE_LIMIT_EXCEEDED]: 402,
  [ErrorCode.REPORT_NOT_FOUND]: 404,
  [ErrorCode.RESOURCE_NOT_FOUND]: 404,
  [ErrorCode.ROUTE_NOT_FOUND]: 404,
  [ErrorCode.WEBHOOK_NOT_FOUND]: 404,
  [ErrorCode.WATERMARK_V2_CONFLICT]: 409,
  [ErrorCode.WATERMARK_V2_API_SUNSET]: 410,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.RATE_LIMIT_EXCEEDED]: 429,
  [ErrorCode.SERVER_INTERNAL_ERROR]: 500,
  [ErrorCode.WATERMARK_V2_UNAVAILABLE]: 503,
};

export function sendError(response: Response, code: ErrorCode): void {
  if (response.headersSent) {
    return;
  }
  response.status(ERROR_HTTP_STATUS[code]).json({ code });
}
