import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/**
 * Public error codes (spec section 7 plus the codes the spec leaves to us, see docs/api-decisions.md).
 * Domain code throws DomainException with one of these; each transport maps them exhaustively.
 */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  ORDER_EXPIRED = 'ORDER_EXPIRED',
  AUTH_NOT_AUTHENTICATED = 'AUTH_NOT_AUTHENTICATED',
  REPORT_NOT_FOUND = 'REPORT_NOT_FOUND',
  RESOURCE_NOT_FOUND = 'RESOURCE_NOT_FOUND',
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  WEBHOOK_NOT_FOUND = 'WEBHOOK_NOT_FOUND',
  WATERMARK_V2_CONFLICT = 'WATERMARK_V2_CONFLICT',
  /** The account already has the most webhooks its key mode may have (docs/api-decisions.md). */
  WEBHOOK_LIMIT_REACHED = 'WEBHOOK_LIMIT_REACHED',
  WATERMARK_V2_API_SUNSET = 'WATERMARK_V2_API_SUNSET',
  USAGE_LIMIT_EXCEEDED = 'USAGE_LIMIT_EXCEEDED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  RATE_LIMIT_EXCEEDED = 'RATE_LIMIT_EXCEEDED',
  SERVER_INTERNAL_ERROR = 'SERVER_INTERNAL_ERROR',
  WATERMARK_V2_UNAVAILABLE = 'WATERMARK_V2_UNAVAILABLE',
}

/** Codes an order can fail with (v2 `errors.errorCode`, failed webhooks). */
export enum OrderFailureCode {
  WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED = 'WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED',
  WATERMARK_FILE_INVALID = 'WATERMARK_FILE_INVALID',
  WATERMARK_PDF_ENCRYPTED = 'WATERMARK_PDF_ENCRYPTED',
  WATERMARK_FILE_TOO_LARGE = 'WATERMARK_FILE_TOO_LARGE',
  WATERMARK_SOURCE_URL_FAILED = 'WATERMARK_SOURCE_URL_FAILED',
  ORDER_TIMEOUT = 'ORDER_TIMEOUT',
  PROCESSING_ERROR = 'PROCESSING_ERROR',
  /** Still `inProgress` after STUCK_ORDER_MAX_AGE_MS without any progress: failed by the sweeper, credits restored. */
  PROCESSING_TIMEOUT = 'PROCESSING_TIMEOUT',
  WATERMARK_V2_API_SUNSET = 'WATERMARK_V2_API_SUNSET',
  AI_DETECTION_FILE_INVALID = 'AI_DETECTION_FILE_INVALID',
  AI_DETECTION_FILE_TOO_LARGE = 'AI_DETECTION_FILE_TOO_LARGE',
  /** Anti-AI: BMP (no place for XMP or a C2PA manifest) or another format outside JPEG, PNG, WebP, TIFF. */
  ANTI_AI_FORMAT_UNSUPPORTED = 'ANTI_AI_FORMAT_UNSUPPORTED',
  /** Anti-AI zero-copy: the target's `presignedUrlExpiresAt` passed, or its server said the URL expired. */
  ANTI_AI_OUTPUT_TARGET_EXPIRED = 'ANTI_AI_OUTPUT_TARGET_EXPIRED',
  /** Anti-AI zero-copy: the target answered the PUT with a refusal (4xx other than expiry). */
  ANTI_AI_OUTPUT_TARGET_REFUSED = 'ANTI_AI_OUTPUT_TARGET_REFUSED',
  /** Anti-AI zero-copy: the target could not be reached (network, timeouts, 5xx) after the retries. */
  ANTI_AI_OUTPUT_TARGET_UNREACHABLE = 'ANTI_AI_OUTPUT_TARGET_UNREACHABLE',
  /** Anti-AI zero-copy: the target is not HTTPS or resolves to a private, loopback, link-local or metadata address. */
  ANTI_AI_OUTPUT_TARGET_FORBIDDEN = 'ANTI_AI_OUTPUT_TARGET_FORBIDDEN',
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (Object.values(ErrorCode) as string[]).includes(value);
}

/** A business rule was violated; `code` is public, `message` is for logs only and never sent to clients. */
/** The body of every HTTP error response; its OpenAPI schema is generated from these decorators (issue 31). */
@ApiSchema({ name: 'Error', description: 'Every error response (spec 7). `code` is public and stable; no internal message is ever returned.' })
export class ErrorView {
  @ApiProperty({ example: 'VALIDATION_FAILED' })
  code!: string;
}

export class DomainException extends Error {
  /**
   * @param retryAfterSeconds when retrying can succeed, and not before: the gateway sends it as `Retry-After` (a 429
   * of a quota that comes back at a known time), and it crosses request/reply with the code.
   */
  constructor(
    readonly code: ErrorCode,
    message: string = code,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainException';
  }
}

/** Shape of an error crossing NATS request/reply. */
export interface RpcErrorBody {
  code: ErrorCode;
  /** `DomainException.retryAfterSeconds`, when the refusal says when to try again. */
  retryAfterSeconds?: number;
}

/**
 * One answer of a batched request: the value, the public code the same request alone would have failed with, or
 * `alone`: ask for this item with the single request (its answer would have made the batch's reply too large).
 */
export type BatchItemResult<T> = { ok: true; value: T } | { ok: false; code: ErrorCode } | { ok: false; alone: true };

/** Reply of a batched request: one result per item, in the items' order. */
export interface BatchResults<T> {
  results: Array<BatchItemResult<T>>;
}
