import { createHash } from 'node:crypto';
import { Client, QueryResult } from 'pg';

/**
 * A text is prepared on a connection from its second use in the process on, so one-off statements (a
 * migration, an `IN` list of an unusual length) never take a slot.
 */
export const PREPARE_FROM_USE = 2;
/** Statements one connection keeps prepared at most; further texts run unnamed (parsed and planned each time). */
export const MAX_PREPARED_PER_CONNECTION = 256;
/** Texts whose uses are counted at most; the count starts again when it is full. */
const MAX_COUNTED_TEXTS = 4096;

const uses = new Map<string, { count: number; name: string | undefined }>();

/** The statement name for a parameterised text, once it is used often enough to be worth preparing. */
function statementNameFor(text: string): string | undefined {
  let seen = uses.get(text);
  if (!seen) {
    if (uses.size >= MAX_COUNTED_TEXTS) {
      uses.clear();
    }
    seen = { count: 0, name: undefined };
    uses.set(text, seen);
  }
  seen.count += 1;
  if (seen.count < PREPARE_FROM_USE) {
    return undefined;
  }
  seen.name ??= `cp_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
  return seen.name;
}

/**
 * A pg client that sends the parameterised statements the service repeats as named prepared statements
 * (issue 19). pg sends every other statement unnamed, and PostgreSQL then parses and plans it on each
 * execution: for order creation's one-statement write, planning alone took 0.24 ms of its 0.53 ms. A named
 * statement is parsed once per connection, and PostgreSQL plans it once when its generic plan costs no more
 * than the custom ones (plan_cache_mode auto).
 * What it cannot do: a pooler in transaction mode between the service and PostgreSQL (PgBouncer before 1.21)
 * does not keep prepared statements on one server connection; a deployment with one sets
 * DATABASE_PREPARED_STATEMENTS=false. PostgreSQL re-plans a prepared statement after DDL on its tables, but one
 * whose result type changes under it (a column whose type a newer release's migration altered) fails with SQLSTATE
 * 0A000 "cached plan must not change result type" on every use: such a statement is dropped from the connection
 * and the query re-run once unprepared (`runPrepared`), so the next use prepares it again with the new type.
 */
/**
 * A pool connection that never crashes its process with an unhandled 'error' event. pg emits 'error' on a client
 * whose connection fails while no query runs on it; TypeORM listens only while a query runner holds the client,
 * pg-pool only while it is idle, and an error in between (PostgreSQL killed as a runner released its client) had no
 * listener: the orders service exited on "terminating connection due to unexpected postmaster exit" in a
 * fresh-clone chaos run. Nothing is lost by listening here: the client is no longer queryable, its next query fails
 * (an outage the callers retry) and pg-pool drops it when it comes back.
 */
export class ServiceClient extends Client {
  constructor(...args: ConstructorParameters<typeof Client>) {
    super(...args);
    this.on('error', () => undefined);
  }
}

export class PreparingClient extends ServiceClient {
  /** Names this connection has prepared (pg itself skips the Parse of a name it has seen). */
  readonly prepared = new Set<string>();
  /** Names whose result type changed while a transaction was open: dropped at the next use outside a failed transaction. */
  readonly stale = new Set<string>();

  /** `text` as the named statement `name`; see the class comment for a result type that changed. */
  async runPrepared(name: string, text: string, values: unknown[]): Promise<QueryResult> {
    if (this.stale.has(name) && this.getTransactionStatus() !== 'E') {
      await this.forget(name);
    }
    this.prepared.add(name);
    try {
      return (await Reflect.apply(plainQuery, this, [{ name, text, values }])) as QueryResult;
    } catch (error) {
      if ((error as { code?: unknown }).code !== RESULT_TYPE_CHANGED) {
        throw error;
      }
      this.stale.add(name);
      // Inside a transaction the error has aborted it: nothing more can run there (the caller's transaction
      // fails as it would have); the statement is dropped at its next use.
      if (this.getTransactionStatus() !== 'I') {
        throw error;
      }
      await this.forget(name);
      return (await Reflect.apply(plainQuery, this, [text, values])) as QueryResult;
    }
  }

  /** Drops a named statement on the server and from pg's record of what this connection has parsed. */
  private async forget(name: string): Promise<void> {
    await (Reflect.apply(plainQuery, this, [`DEALLOCATE "${name}"`]) as Promise<QueryResult>).catch((error: unknown) => {
      // Already gone on the server (26000): what matters is that it is gone.
      if ((error as { code?: unknown }).code !== '26000') {
        throw error;
      }
    });
    delete (this as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements[name];
    this.prepared.delete(name);
    this.stale.delete(name);
  }
}

/** SQLSTATE feature_not_supported: "cached plan must not change result type" of a prepared statement. */
const RESULT_TYPE_CHANGED = '0A000';

// pg's own method, always called with the client as `this` below.
// eslint-disable-next-line @typescript-eslint/unbound-method
const plainQuery = Client.prototype.query;

// TypeORM calls `query(text, parameters)`; only that form is named, every other call goes through unchanged.
PreparingClient.prototype.query = function query(this: PreparingClient, ...args: unknown[]): unknown {
  const [text, values] = args;
  if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
    const name = statementNameFor(text);
    if (name && (this.prepared.has(name) || this.prepared.size < MAX_PREPARED_PER_CONNECTION)) {
      return this.runPrepared(name, text, values);
    }
  }
  return Reflect.apply(plainQuery, this, args) as unknown;
} as Client['query'];
