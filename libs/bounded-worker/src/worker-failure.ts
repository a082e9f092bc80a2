/** Why a call to a bounded worker did not get its reply. */
export enum WorkerFailureCode {
  /** The call ran longer than its deadline: the worker was stopped (only way to interrupt synchronous work). */
  DEADLINE = 'DEADLINE',
  /** The worker's JavaScript heap reached its limit while running the call. */
  OUT_OF_MEMORY = 'OUT_OF_MEMORY',
  /** The worker died for another reason (uncaught error, exit, failed start). */
  CRASHED = 'CRASHED',
  /** The caller gave up (its AbortSignal fired) or the worker was closed. */
  ABORTED = 'ABORTED',
}

/** A call that got no reply from its worker; the worker has been replaced for the next call. */
export class WorkerFailure extends Error {
  constructor(
    readonly code: WorkerFailureCode,
    /** The worker's name (e.g. `pdf-render`), for logs. */
    readonly worker: string,
    message: string,
  ) {
    super(`${worker} worker: ${message}`);
    this.name = 'WorkerFailure';
  }
}
