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
    /** Node's code of a NETWORK failure (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`, …), when it had one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The error as an EgressError: a foreign one (socket, TLS, DNS) is a NETWORK failure with its message and code. */
export function asEgressError(error: unknown): EgressError {
  if (error instanceof EgressError) {
    return error;
  }
  // Read by shape, not `instanceof Error`: an error of Node's own modules is of another realm's Error under a test
  // runner's sandbox, and would lose its code.
  const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; message?: unknown }) : {};
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const message = (typeof fields.message === 'string' && fields.message) || code || (typeof error === 'string' ? error : 'connection failed');
  return new EgressError(EgressFailure.NETWORK, message, undefined, code);
}

const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|HOSTNAME_MISMATCH$|ERR_OSSL_)/;

/**
 * A NETWORK failure as a client may be shown it (a webhook delivery's `error`): a fixed sentence per kind, never
 * Node's own message (which names the address it connected to and reads as the library's internals). A TLS failure
 * keeps its code, which says what to fix (an expired or self-signed certificate, a name that does not match).
 */
export function publicNetworkFailure(error: EgressError): string {
  const code = error.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || / has no address$/.test(error.message)) {
    return 'the host name could not be resolved';
  }
  if (code === 'ECONNREFUSED') {
    return 'the connection was refused';
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || error.message === 'socket hang up') {
    return 'the receiver closed the connection';
  }
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH' || code === 'EHOSTDOWN') {
    return 'the receiver could not be reached';
  }
  if (TLS_CODE.test(code)) {
    return `the TLS handshake failed (${code})`;
  }
  return 'the connection failed';
}
