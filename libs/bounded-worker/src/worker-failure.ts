/** Why a call to a bounded worker did not get its reply. */
export enum WorkerFailureCode {
  /**
   * The call kept the worker busy too long, the input's doing: a `process` worker used its CPU budget (a share of the
   * deadline: WORKER_CPU_SHARE) and was stopped, or reached its deadline having used it; a `thread` worker (whose CPU
   * cannot be told from the service's) reached its deadline. Stopping it is the only way to interrupt synchronous work.
   */
  DEADLINE = 'DEADLINE',
  /**
   * A `process` worker reached its deadline having used less CPU than its budget: it mostly waited to be run (an
   * overloaded machine, a paused process), which no input causes. The machine's failure: worth another attempt.
   */
  STARVED = 'STARVED',
  /** The worker's JavaScript heap or resident memory reached its limit while running the call. */
  OUT_OF_MEMORY = 'OUT_OF_MEMORY',
  /**
   * A `process` worker was killed (SIGKILL) by someone else during the call: the kernel's OOM killer when the pod ran
   * out of memory (the child is its first choice), an operator. Its own limits never send it (past its heap V8
   * aborts, and the watches' own kills are reported as OUT_OF_MEMORY or DEADLINE). The machine's failure.
   */
  KILLED = 'KILLED',
  /** The worker died for another reason (uncaught error, exit, a signal other than SIGKILL, failed start). */
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
    /** CPU the call had used when it failed (DEADLINE, STARVED of a `process` worker); null when not measured. */
    readonly cpuMillis: number | null = null,
  ) {
    super(`${worker} worker: ${message}`);
    this.name = 'WorkerFailure';
  }
}

/**
 * The call failed for the machine, not its input (STARVED, KILLED): callers throw it on so the job is attempted again
 * (redelivered with backoff) instead of refusing the file.
 */
export function isWorkerMachineFailure(error: unknown): error is WorkerFailure {
  return error instanceof WorkerFailure && (error.code === WorkerFailureCode.STARVED || error.code === WorkerFailureCode.KILLED);
}
