import { ContentProtectionError } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt (429, 502/503/504 and network errors of requests safe to repeat). */
  maxRetries: number;
  /** First backoff; doubled per retry, with jitter. */
  baseDelayMs: number;
  /** No single wait is longer: an answer whose `Retry-After` asks for more is returned to the caller at once. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

const RETRYABLE_STATUS = new Set([502, 503, 504]);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as seconds (delta form or HTTP date), undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now: number = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') {
    return undefined;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim());
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Why a request got no answer, in words, with the system's code (fetch itself only says "fetch failed"). */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ECONNRESET: 'the server closed the connection',
  UND_ERR_SOCKET: 'the server closed the connection',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

export function networkFailure(request: Request, error: unknown): ContentProtectionError {
  const url = new URL(request.url);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const reason = code
    ? `${NETWORK_REASONS[code] ?? 'the API could not be reached'} (${code})`
    : typeof cause?.message === 'string'
      ? cause.message
      : (error as Error).message;
  // origin and path only: a query may carry a presigned signature
  return new ContentProtectionError('NETWORK_ERROR', `${request.method} ${url.origin}${url.pathname}: ${reason}`, { cause: error });
}

function backoff(policy: RetryPolicy, retry: number): number {
  const exponential = policy.baseDelayMs * 2 ** retry;
  return Math.min(policy.maxDelayMs, exponential / 2 + Math.random() * (exponential / 2));
}

/**
 * How long to wait before repeating a refused request: `Retry-After` when the answer carries it (every 429 and
 * every 503 of the API does: the 503's says how long a pool or a restarting replica needs, and retrying sooner only
 * adds to the load that refused it), never less than the backoff and never more than `maxDelayMs`.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, headers: Headers): number {
  const wait = retryAfterSeconds(headers);
  const backoffMs = backoff(policy, retry);
  return wait === undefined ? backoffMs : Math.min(policy.maxDelayMs, Math.max(backoffMs, wait * 1000));
}

/**
 * A request may be sent again when repeating it cannot do anything twice: reads, PUT/DELETE, and POSTs whose
 * JSON body carries an `idempotencyKey` (the key is in the body, so a retry reuses it).
 */
async function repeatable(request: Request): Promise<boolean> {
  if (request.method !== 'POST') {
    return true;
  }
  const text = await request.clone().text();
  return /"idempotencyKey"\s*:/.test(text);
}

/**
 * fetch with the API's retry rules: 429 waits for `Retry-After` (any method: the request was refused before
 * handling); 502/503/504 and network errors retry with exponential backoff when the request is repeatable, a 503
 * no sooner than its `Retry-After`. A `Retry-After` beyond `maxDelayMs` ends the retries: the caller gets that answer.
 */
export function retryingFetch(policy: RetryPolicy, baseFetch: typeof fetch = fetch): (request: Request) => Promise<Response> {
  return async (request: Request): Promise<Response> => {
    const canRepeat = await repeatable(request);
    for (let retry = 0; ; retry += 1) {
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (error) {
        if (!canRepeat || retry >= policy.maxRetries) {
          throw networkFailure(request, error);
        }
        await sleep(backoff(policy, retry));
        continue;
      }
      if (retry >= policy.maxRetries) {
        return response;
      }
      if (response.status === 429 || (RETRYABLE_STATUS.has(response.status) && canRepeat)) {
        // A wait longer than any the policy allows (a test key's daily order allowance: up to 24 hours) is the
        // caller's to decide: retrying after maxDelayMs would only be refused again, and count against the rate limit.
        const wait = retryAfterSeconds(response.headers);
        if (wait !== undefined && wait * 1000 > policy.maxDelayMs) {
          return response;
        }
        await response.body?.cancel();
        await sleep(retryDelayMs(policy, retry, response.headers));
        continue;
      }
      return response;
    }
  };
}
