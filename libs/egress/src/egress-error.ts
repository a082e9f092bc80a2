/** Why an outbound request failed; callers map each reason to their own public code. */
export enum EgressFailure {
  /** Not an absolute URL, a scheme the caller does not allow, credentials in the URL, no host. */
  BAD_URL = 'bad_url',
  /** The destination (or an address its name resolves to, or the socket's peer) is not a public address. */
  BLOCKED_ADDRESS = 'blocked_address',
  /** The whole exchange (connect, send, headers, body) did not finish within its deadline. */
  DEADLINE = 'deadline',
  /** The request body or the response body is larger than its cap (declared or counted). */
  TOO_LARGE = 'too_large',
  /** The answer's status is not accepted (any redirect; a non-2xx answer of a streamed GET). */
  BAD_STATUS = 'bad_status',
  /** DNS failure, refused or reset connection, TLS failure. */
  NETWORK = 'network',
  /** The caller gave up (its AbortSignal): the exchange was ended where it was. */
  ABORTED = 'aborted',
}

export class EgressError extends Error {
  override readonly name = 'EgressError';

  constructor(
    readonly reason: EgressFailure,
    message: string,
    /** The answer's HTTP status when there was one (BAD_STATUS). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The error as an EgressError: a foreign one (socket, TLS, DNS) is a NETWORK failure with its message. */
export function asEgressError(error: unknown): EgressError {
  if (error instanceof EgressError) {
    return error;
  }
  const message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || 'connection failed' : String(error);
  return new EgressError(EgressFailure.NETWORK, message);
}
