import { ContentProtectionError, WebhookVerificationError } from '@cp/sdk';

/** Exit codes scripts can rely on (documented in `cpx --help` and docs/sdk-and-cli.md). */
export enum ExitCode {
  OK = 0,
  /** Unexpected failure (a bug, or an answer the CLI did not understand). */
  FAILURE = 1,
  /** Wrong command line (unknown option, missing argument, no API key). */
  USAGE = 2,
  /** `trace`: the file was checked and no watermark was found (`not_detected`). */
  NOT_DETECTED = 3,
  /** The API key was refused (AUTH_NOT_AUTHENTICATED). */
  AUTH = 4,
  /** The API refused the request (VALIDATION_FAILED, RESOURCE_NOT_FOUND, ORDER_EXPIRED, USAGE_LIMIT_EXCEEDED, …). */
  REJECTED = 5,
  /** The order or the report ended failed. */
  ORDER_FAILED = 6,
  /** Waiting timed out; the order may still finish (see `cpx orders get`). */
  TIMEOUT = 7,
  /** The API could not be reached or stayed unavailable / rate limited after retries. */
  UNAVAILABLE = 8,
  /** A local file could not be read or written. */
  FILE_ERROR = 9,
  /*
   * The trace outcomes below are neither "detected" nor "clean" (spec 2.4). They had exit 3 until a script read a
   * failed check as a clean file; each has its own code because a script does something different for each:
   * look closer (inconclusive), try again (error), or change the file (unsupported).
   */
  /** `trace`: a possible watermark below the confidence threshold (`inconclusive`): neither detected nor clean. */
  TRACE_INCONCLUSIVE = 10,
  /** `trace`: detection failed, the file was not checked (`error`; credit refunded). */
  TRACE_NOT_CHECKED = 11,
  /** `trace`: the file is outside what can be checked (`unsupported`; credit refunded). */
  TRACE_UNSUPPORTED = 12,
}

export const EXIT_CODES_HELP = `
Exit codes:
  0   success (trace: a watermark was detected)
  2   usage error
  3   trace: the file was checked, no watermark found
  4   API key refused
  5   request refused by the API (the code is printed)
  6   order or report failed
  7   timed out waiting
  8   API unreachable, unavailable or rate limited after retries
  9   local file error
  10  trace: inconclusive, a possible watermark below the confidence threshold (neither detected nor clean)
  11  trace: the file could not be checked, detection failed (not a clean result)
  12  trace: the file could not be checked, it is outside what can be checked (not a clean result)
  1   anything else`;

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof WebhookVerificationError) {
    return ExitCode.REJECTED;
  }
  if (!(error instanceof ContentProtectionError)) {
    return ExitCode.FAILURE;
  }
  switch (error.code) {
    case 'AUTH_NOT_AUTHENTICATED':
      return ExitCode.AUTH;
    case 'ORDER_FAILED':
    case 'REPORT_FAILED':
      return ExitCode.ORDER_FAILED;
    case 'WAIT_TIMEOUT':
      return ExitCode.TIMEOUT;
    case 'NETWORK_ERROR':
    case 'RATE_LIMIT_EXCEEDED':
    case 'WATERMARK_V2_UNAVAILABLE':
    case 'SERVER_INTERNAL_ERROR':
    case 'TRANSFER_FAILED':
      return ExitCode.UNAVAILABLE;
    case 'FILE_ERROR':
      return ExitCode.FILE_ERROR;
    case 'UNEXPECTED_RESPONSE':
      return ExitCode.FAILURE;
    default:
      return ExitCode.REJECTED;
  }
}
