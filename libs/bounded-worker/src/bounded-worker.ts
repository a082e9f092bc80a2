import { openChannel, WorkerChannel, WorkerIsolation } from './worker-channel';
import { WorkerFailure, WorkerFailureCode } from './worker-failure';

export interface WorkerLimits {
  /** Wall-clock budget of one call, counted from when the worker starts it (not while it waits its turn). */
  deadlineMs: number;
  /** V8 old-generation heap of the worker (resourceLimits.maxOldGenerationSizeMb). */
  maxOldGenerationSizeMb: number;
  /** V8 young-generation heap (resourceLimits.maxYoungGenerationSizeMb); V8's default when absent. */
  maxYoungGenerationSizeMb?: number;
  /** Thread stack (resourceLimits.stackSizeMb); Node's default (4) when absent. */
  stackSizeMb?: number;
  /**
   * `process` workers only: the child's whole resident memory (heap, array buffers, WebAssembly, native), watched
   * while it runs; past it the child is killed and the running call fails with OUT_OF_MEMORY. The heap limit does
   * not bound array buffers, which a hostile file can make a decoder fill (a PDF's 16000 × 16000 JPEG: 3.2 GB).
   * Unset: not watched (the raised OOM score still makes the kernel end the child first).
   */
  maxResidentMb?: number;
  /**
   * `process` workers only: share of a call's deadline that is its CPU budget (default WORKER_CPU_SHARE). Past it the
   * call fails with DEADLINE (the input's doing); a call that reaches its deadline under it fails with STARVED.
   */
  cpuShare?: number;
}

/**
 * Share of a call's deadline that is its CPU budget, as for ExifTool (`exiftoolLimits` of @cp/watermark). A worker runs the call on
 * one JavaScript thread: given a core, a busy call uses about as much CPU as wall time (a little more with V8's
 * collector threads), so at a half a busy input is stopped after half its deadline on an idle machine, and blamed on
 * the input while the machine gives the worker at least half a core; given less, the call reaches its deadline first
 * and is retried as STARVED. A call that waits for nothing but the CPU (the workers' calls: pdf.js, c2pa-rs, pdfmake
 * wait on no network; pdfmake reads its fonts from local disk) reaches its deadline under budget only for the machine.
 * Measured: pdf.js on a 3 KB file of nested forms used 10.1 s of CPU in 8.9 s of wall time (V8's helper threads).
 */
export const WORKER_CPU_SHARE = 0.5;

/** How often a running call's CPU is read (a few microseconds each, only while a `process` call runs). */
export const CPU_CHECK_MS = 100;

/**
 * The smallest CPU budget the attribution trusts: ten steps of /proc's 10 ms clock. Under it (a call whose deadline a
 * document's budget cut to its last milliseconds) what was read says too little to tell, and the call is the input's.
 */
export const MIN_ATTRIBUTED_CPU_MS = 100;

/**
 * The failure of a call stopped by its deadline or its CPU budget, from the CPU it used (`usedMs`; null when not
 * measured): at or past the budget the input kept the worker busy (DEADLINE); under it the call mostly waited to be
 * run (STARVED). Not measured (a thread, no /proc) or a budget under MIN_ATTRIBUTED_CPU_MS: DEADLINE, as before CPU
 * was read, since nothing shows the machine was at fault.
 */
export function deadlineFailure(worker: string, deadlineMs: number, cpuBudgetMs: number, usedMs: number | null): WorkerFailure {
  if (usedMs === null || cpuBudgetMs < MIN_ATTRIBUTED_CPU_MS) return new WorkerFailure(WorkerFailureCode.DEADLINE, worker, `the call took longer than ${deadlineMs} ms`);
  const used = Math.round(usedMs);
  if (usedMs >= cpuBudgetMs) {
    return new WorkerFailure(WorkerFailureCode.DEADLINE, worker, `the call kept the worker busy past its CPU budget of ${cpuBudgetMs} ms (${used} ms of CPU; deadline ${deadlineMs} ms)`, usedMs);
  }
  return new WorkerFailure(WorkerFailureCode.STARVED, worker, `the call reached its ${deadlineMs} ms deadline having used ${used} ms of CPU (budget ${cpuBudgetMs} ms): it waited to be run`, usedMs);
}

/**
 * What a process worker may hold beyond its V8 heap (the arrays a decoder fills, WebAssembly memory) when its
 * `maxResidentMb` follows its heap limit (`residentLimitMb`): the PDF renderer and the C2PA reader.
 */
export const RESIDENT_HEADROOM_MB = 512;

/** The resident-memory limit that goes with a heap limit: the heap plus RESIDENT_HEADROOM_MB. */
export function residentLimitMb(maxOldGenerationSizeMb: number): number {
  return maxOldGenerationSizeMb + RESIDENT_HEADROOM_MB;
}

export interface BoundedWorkerOptions {
  /** Short name for errors and logs. */
  name: string;
  /** Absolute path of the worker script (a plain `.mjs`, so it runs the same under ts-node, Jest and the build). */
  file: string;
  limits: WorkerLimits;
  /** `thread` (default) or `process`: see WorkerIsolation. */
  isolation?: WorkerIsolation;
  /** A worker without work for this long is stopped (default 5 s); it never keeps the process alive while idle. */
  idleMs?: number;
  /**
   * `process` workers with `maxResidentMb`: a worker still holding more than this share of it after a call is
   * replaced before the next one (a decoder's pages or WebAssembly memory stay with the process once freed, and the
   * next file, perhaps another account's, would be killed for them). Unset: kept.
   */
  retireAboveResidentShare?: number;
}

/** What the worker script answers: any object carrying the `id` of the request it answers. */
export interface WorkerReplyMessage {
  id: number;
  /**
   * The worker asks to be replaced after this reply (its state can no longer be trusted, e.g. a WebAssembly
   * instance after a trap); the reply itself is delivered.
   */
  retire?: boolean;
}

interface Call<TReply> {
  id: number;
  message: object;
  transfer: ArrayBuffer[];
  deadlineMs: number;
  cpuBudgetMs?: number;
  signal?: AbortSignal;
  onAbort?: () => void;
  onStart?: () => void;
  onEnd?: (usage: CallUsage) => void;
  resolve: (reply: TReply) => void;
  reject: (error: Error) => void;
}

export interface CallOptions {
  /** Buffers moved to the worker instead of copied (they are unusable by the caller afterwards). */
  transfer?: ArrayBuffer[];
  /** Overrides the configured deadline for this call. */
  deadlineMs?: number;
  /** Abandons the call (and stops the worker if the call is running). */
  signal?: AbortSignal;
  /** Called when the call leaves the queue and starts, with its deadline: time spent queued is not the call's. */
  onStart?: () => void;
  /**
   * Overrides the call's CPU budget (by default its deadline times `cpuShare`): a caller that shares one budget among
   * several calls (a document's pages) gives each what is left of it.
   */
  cpuBudgetMs?: number;
  /** Called once when a call that started ends (answered or failed), with what it used. */
  onEnd?: (usage: CallUsage) => void;
}

/** What a call used, from its start to its end. */
export interface CallUsage {
  wallMs: number;
  /** CPU of the worker process over the call; null when not measured (a thread, no /proc, the process gone). */
  cpuMs: number | null;
}

interface Running<TReply> {
  call: Call<TReply>;
  /** The wall deadline. */
  timer: NodeJS.Timeout;
  /** The CPU budget's watch (`process` workers where /proc is read). */
  cpuWatch: NodeJS.Timeout | null;
  worker: WorkerChannel;
  startedAt: number;
  cpuUsed: () => number | null;
}

function stopTimers(running: Pick<Running<never>, 'timer' | 'cpuWatch'>): void {
  clearTimeout(running.timer);
  if (running.cpuWatch) clearInterval(running.cpuWatch);
}

/**
 * One lazily started worker thread with heap limits that runs one call at a time. Calls are serialised so that a
 * crash or a blown deadline is blamed on exactly the call that was running: the queued calls move to the next
 * worker untouched. A call that overruns its deadline, runs the worker out of memory or kills it rejects with a
 * WorkerFailure, and the worker is replaced for the next call. A `process` worker's CPU is read while a call runs: past
 * its budget the call is the input's doing (DEADLINE), at its deadline under budget the machine's (STARVED).
 */
export class BoundedWorker<TRequest extends object, TReply extends WorkerReplyMessage> {
  private worker: WorkerChannel | null = null;
  private nextId = 1;
  private readonly queue: Array<Call<TReply>> = [];
  private running: Running<TReply> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private limits: WorkerLimits;

  constructor(private readonly options: BoundedWorkerOptions) {
    this.limits = { ...options.limits };
  }

  /**
   * New limits apply from the next worker started (the current one is stopped when idle). A new deadline alone keeps
   * the current worker: a deadline is each call's own, read when the call starts, and nothing of the process.
   */
  configure(limits: Partial<WorkerLimits>): void {
    const before = this.limits;
    this.limits = { ...this.limits, ...limits };
    const changed = (Object.keys(this.limits) as Array<keyof WorkerLimits>).filter((key) => this.limits[key] !== before[key]);
    if (!this.running && changed.some((key) => key !== 'deadlineMs')) void this.close();
  }

  get currentLimits(): WorkerLimits {
    return { ...this.limits };
  }

  call(request: TRequest, options: CallOptions = {}): Promise<TReply> {
    return new Promise<TReply>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new WorkerFailure(WorkerFailureCode.ABORTED, this.options.name, 'the call was abandoned before it started'));
        return;
      }
      const id = this.nextId++;
      const call: Call<TReply> = {
        id,
        message: { ...request, id },
        transfer: options.transfer ?? [],
        deadlineMs: options.deadlineMs ?? this.limits.deadlineMs,
        cpuBudgetMs: options.cpuBudgetMs,
        signal: options.signal,
        onStart: options.onStart,
        onEnd: options.onEnd,
        resolve,
        reject,
      };
      if (options.signal) {
        call.onAbort = () => this.abandon(call);
        options.signal.addEventListener('abort', call.onAbort, { once: true });
      }
      this.queue.push(call);
      this.pump();
    });
  }

  /** Stops the worker; queued and running calls reject with ABORTED. */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const calls = [...(this.running ? [this.running.call] : []), ...this.queue.splice(0)];
    if (this.running) {
      stopTimers(this.running);
      this.ended(this.running, null);
    }
    this.running = null;
    for (const call of calls) this.finish(call, new WorkerFailure(WorkerFailureCode.ABORTED, this.options.name, 'the worker was closed'));
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.stop();
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return;
    const call = this.queue.shift() as Call<TReply>;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    let worker: WorkerChannel;
    try {
      worker = this.ensure();
    } catch (error) {
      this.finish(call, new WorkerFailure(WorkerFailureCode.CRASHED, this.options.name, `the worker cannot start: ${(error as Error).message}`));
      this.pump();
      return;
    }
    worker.ref();
    // What the worker had used before the call (a new one: its start, which is the call's too, as its time is).
    const cpuAtStart = worker.cpuMillis();
    const cpuBudgetMs = call.cpuBudgetMs ?? call.deadlineMs * (this.limits.cpuShare ?? WORKER_CPU_SHARE);
    const cpuUsed = (): number | null => {
      const now = cpuAtStart === null ? null : worker.cpuMillis();
      return now === null || cpuAtStart === null ? null : now - cpuAtStart;
    };
    const timer = setTimeout(() => this.replace(worker, deadlineFailure(this.options.name, call.deadlineMs, cpuBudgetMs, cpuUsed())), call.deadlineMs);
    let cpuWatch: NodeJS.Timeout | null = null;
    if (cpuAtStart !== null) {
      cpuWatch = setInterval(() => {
        const used = cpuUsed();
        if (used !== null && used >= cpuBudgetMs) this.replace(worker, deadlineFailure(this.options.name, call.deadlineMs, cpuBudgetMs, used));
      }, CPU_CHECK_MS);
      // The deadline's timer (ref'd with the worker) is what keeps the process alive during a call.
      cpuWatch.unref();
    }
    const running: Running<TReply> = { call, timer, cpuWatch, worker, startedAt: performance.now(), cpuUsed };
    this.running = running;
    call.onStart?.();
    try {
      worker.send(call.message, call.transfer);
    } catch (error) {
      // A message that cannot be cloned is the caller's mistake, not the worker's: the worker stays.
      stopTimers(running);
      this.ended(running, null);
      this.running = null;
      this.finish(call, error instanceof Error ? error : new Error(String(error)));
      this.pump();
      this.settle();
    }
  }

  private ensure(): WorkerChannel {
    if (this.worker) return this.worker;
    const worker: WorkerChannel = openChannel(this.options.isolation ?? 'thread', this.options.file, this.limits, {
      message: (reply) => this.onReply(worker, reply as TReply | null),
      failed: (code, message) => this.replace(worker, new WorkerFailure(code, this.options.name, message)),
    });
    this.worker = worker;
    return worker;
  }

  /** Whether the worker kept more resident memory after its call than `retireAboveResidentShare` of its limit. */
  private keepsTooMuch(worker: WorkerChannel): boolean {
    const { retireAboveResidentShare } = this.options;
    const limit = this.limits.maxResidentMb;
    if (retireAboveResidentShare === undefined || limit === undefined) return false;
    return (worker.residentMb() ?? 0) > limit * retireAboveResidentShare;
  }

  private onReply(worker: WorkerChannel, reply: TReply | null): void {
    const running = this.running;
    // Late replies of a call already failed (deadline) come from a worker already replaced.
    if (!running || running.worker !== worker || reply?.id !== running.call.id) return;
    stopTimers(running);
    this.ended(running, running.cpuUsed());
    this.running = null;
    if ((reply.retire || this.keepsTooMuch(worker)) && this.worker === worker) {
      this.worker = null;
      void worker.stop();
    }
    this.finish(running.call, null, reply);
    this.pump();
    this.settle();
  }

  /**
   * The worker is unusable (deadline, crash, abandoned call): the running call fails with `failure`, the worker
   * is stopped, and the queued calls start on a new worker. Events of a worker already replaced are ignored.
   */
  private replace(worker: WorkerChannel, failure: WorkerFailure): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const running = this.running;
    if (running && running.worker === worker) {
      stopTimers(running);
      // read before the process is stopped (a failure of the deadline's or the CPU watch's carries what it read)
      this.ended(running, failure.cpuMillis ?? running.cpuUsed());
      this.running = null;
      this.finish(running.call, failure);
    }
    void worker.stop();
    this.pump();
    this.settle();
  }

  /** Reports what a started call used to its caller (once: the running call is cleared right after). */
  private ended(running: Running<TReply>, cpuMs: number | null): void {
    running.call.onEnd?.({ wallMs: performance.now() - running.startedAt, cpuMs });
  }

  private abandon(call: Call<TReply>): void {
    const queued = this.queue.indexOf(call);
    const failure = new WorkerFailure(WorkerFailureCode.ABORTED, this.options.name, 'the call was abandoned');
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(call, failure);
      return;
    }
    if (this.running?.call === call) this.replace(this.running.worker, failure);
  }

  private finish(call: Call<TReply>, error: Error | null, reply?: TReply): void {
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    if (error) call.reject(error);
    else call.resolve(reply as TReply);
  }

  /** An idle worker does not keep the process alive and stops after a few seconds. */
  private settle(): void {
    if (this.running || this.queue.length > 0 || !this.worker) return;
    this.worker.unref();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.running) return;
      this.worker = null;
      void worker.stop();
    }, this.options.idleMs ?? 5_000);
    this.idleTimer.unref();
  }
}
