/**
 * Errors that say the database cannot be reached or cannot take the work now, not that the work is wrong: the
 * API answers them with 503 and `Retry-After`, consumers redeliver without using up an attempt.
 */

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;

/**
 * SQLSTATEs: class 08 (connection exception), 57P01-57P03 (administrator or crash shutdown, cannot connect now,
 * e.g. starting up), 53300 (too many connections). Not 57014 (a statement cancelled by statement_timeout: the
 * statement's own cost, retrying it as it is would cost the same).
 */
const SQL_STATES = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;

/**
 * Messages without a code: pg-pool's wait for a free connection ("timeout exceeded when trying to connect"), pg's
 * own connect timeout and a connection that ended under a query, a pool already closed at shutdown.
 */
const MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode)|Cannot use a pool after calling end|connect ECONNREFUSED/i;

/** Whether `error`, or an error it wraps (`cause`, TypeORM's `driverError`), is the database being unavailable. */
export function isDatabaseUnavailableError(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    // Not `instanceof Error`: errors of node's own modules may come from another realm (a test's VM context).
    if (typeof current !== 'object' || current === null || seen.has(current)) {
      continue;
    }
    seen.add(current);
    const { code, message, cause, driverError, errors } = current as { code?: unknown; message?: unknown; cause?: unknown; driverError?: unknown; errors?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.test(code) || SQL_STATES.test(code))) {
      return true;
    }
    if (typeof message === 'string' && MESSAGES.test(message)) {
      return true;
    }
    // AggregateError (a host name resolving to several addresses, each refused) keeps its parts in `errors`.
    pending.push(cause, driverError, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
  return false;
}
