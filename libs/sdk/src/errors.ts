/**
 * Public error codes of the API (`{ code }` bodies, spec 7 and docs/api-decisions.md). A unit test keeps this
 * list equal to the codes the OpenAPI document declares.
 */
export const API_ERROR_CODES = [
  'VALIDATION_FAILED',
  'ORDER_EXPIRED',
  'AUTH_NOT_AUTHENTICATED',
  'USAGE_LIMIT_EXCEEDED',
  'REPORT_NOT_FOUND',
  'RESOURCE_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'WATERMARK_V2_CONFLICT',
  'WEBHOOK_LIMIT_REACHED',
  'WATERMARK_V2_API_SUNSET',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMIT_EXCEEDED',
  'SERVER_INTERNAL_ERROR',
  'WATERMARK_V2_UNAVAILABLE',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Failures the SDK itself detects (no API response carries them). */
export const SDK_ERROR_CODES = [
  /** The API could not be reached (after the retries). */
  'NETWORK_ERROR',
  /** An answer that is not the documented shape (e.g. a proxy's HTML page). */
  'UNEXPECTED_RESPONSE',
  /** The order did not finish within the wait's timeout; it may still finish later. */
  'WAIT_TIMEOUT',
  /** The order ended `failed` (or `expired`). */
  'ORDER_FAILED',
  /** A PUT to an upload URL or a GET of a download URL failed. */
  'TRANSFER_FAILED',
  /** The report ended `failed`. */
  'REPORT_FAILED',
  /** A local file could not be read or written. */
  'FILE_ERROR',
] as const;
export type SdkErrorCode = (typeof SDK_ERROR_CODES)[number];

export type ErrorCodeValue = ApiErrorCode | SdkErrorCode | 'ROUTE_NOT_FOUND';

/** Every failure of the SDK: `code` is the API's public code, or one of the SDK's own. */
export class ContentProtectionError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
    readonly details: { status?: number; retryAfterSeconds?: number; orderId?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ContentProtectionError';
  }

  /** HTTP status of the API answer, when there was one. */
  get status(): number | undefined {
    return this.details.status;
  }
}

export function isContentProtectionError(value: unknown, code?: ErrorCodeValue): value is ContentProtectionError {
  return value instanceof ContentProtectionError && (code === undefined || value.code === code);
}
