import { preferForOutOfMemory, processCpuMillis, WORKER_CPU_SHARE } from '@cp/bounded-worker';
import { ExifTool, ExifToolOptions, exiftoolPath, ExifToolTask } from 'exiftool-vendored';
import { spawn } from 'node:child_process';

/**
 * Memory (address space) the AI detector's ExifTool may take while it reads one file. A few megabytes of legitimate
 * metadata (a ComfyUI workflow, a Photoshop XMP of 3 MB) peaked at about 110 MB resident; what the file can make
 * ExifTool hold is far larger than the file (8 MB of XMP with many properties: 3.9 GB), whatever its container.
 */
export const EXIFTOOL_READ_MAX_MEMORY_MB = 512;

/**
 * The same for the anti-AI opt-out writer, in the watermark processor (2 GiB, one job at a time): ExifTool checks
 * the CRC of each PNG chunk it rewrites through a perl list of its bytes, about 45 bytes of memory for each one
 * (a legitimate 3.3 MB XMP chunk: 225 MB).
 */
export const EXIFTOOL_WRITE_MAX_MEMORY_MB = 1024;

/** How often the CPU of a running task is read (a few microseconds each, only while a task runs). */
const CPU_POLL_MS = 200;

export interface ExiftoolLimits {
  /** Address space of the perl process (`ulimit -v`); past it perl dies and the file is at fault. */
  maxMemoryMb: number;
  /** Wall time of one task; a task that reaches it without using its CPU budget failed for the machine, not the file. */
  taskTimeoutMillis: number;
  /** CPU time (user + system) one task may use: past it the file is at fault. Default: see `exiftoolLimits`. */
  cpuBudgetMillis?: number;
}

/**
 * Limits with the CPU budget the deadline implies unless given: WORKER_CPU_SHARE (a half) of it, as for the bounded
 * workers (read: 10 s, rewrite: 15 s). A file that keeps ExifTool on the CPU that long is the file's doing: legitimate
 * metadata needs less (5.7 MB of Photoshop XMP, near the largest a PNG may hand it: 4.8 s to read, 5.2 s to rewrite; a
 * 1.7 MB ComfyUI workflow 0.1 s), and a task that reaches its deadline with less has mostly waited for a CPU (an
 * overloaded machine, a paused process), which no file causes. At a half, a busy file is refused after half its
 * deadline on an idle machine, and as the file's fault while the machine gives it at least half a core; given less, it
 * reaches the deadline first and is retried like a starved task.
 */
export function exiftoolLimits(limits: ExiftoolLimits): Required<ExiftoolLimits> {
  return {
    maxMemoryMb: limits.maxMemoryMb,
    taskTimeoutMillis: limits.taskTimeoutMillis,
    cpuBudgetMillis: limits.cpuBudgetMillis ?? limits.taskTimeoutMillis * WORKER_CPU_SHARE,
  };
}

export interface BoundedExiftoolOptions extends ExiftoolLimits {
  /** Arguments before the `-stay_open` ones (`-config <file>` must come first). */
  leadingArgs?: string[];
  /** CPU time a process has used, in ms, or null when it cannot be read (tests give their own). */
  cpuMillis?: (pid: number) => number | null;
}

/** The file made ExifTool fail: its task took it past its memory limit or its CPU budget. A retry would fail the same way. */
export class ExiftoolFileFailure extends Error {
  constructor(
    readonly exceeded: 'memory' | 'cpu',
    message: string,
  ) {
    super(message);
    this.name = 'ExiftoolFileFailure';
  }
}

/**
 * ExifTool failed for the machine, not the file: it reached its wall deadline without using its CPU budget (`starved`:
 * it mostly waited to be run, on an overloaded machine or paused), or the kernel killed it (`killed`: SIGKILL, which
 * its own memory limit never sends; the pod out of memory picks it first). Thrown on, so the job is retried like any
 * other transient failure.
 */
export class ExiftoolMachineFailure extends Error {
  constructor(
    readonly reason: 'starved' | 'killed',
    readonly cpuMillis: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ExiftoolMachineFailure';
  }
}

/** Whether an ExifTool task failed because of the file (past its memory limit or its CPU budget). */
export function isExiftoolFileFailure(error: unknown): error is ExiftoolFileFailure {
  return error instanceof ExiftoolFileFailure;
}

/** What was measured of one failed task. */
export interface TaskReading {
  /** CPU the task used (at its deadline, when the watch ended it, or when it died), or null when it could not be read. */
  cpuMillis: number | null;
  /** The CPU watch ended the process because the task passed its budget. */
  overBudget: boolean;
  /** The signal that ended the process during the task, if one did (e.g. SIGSEGV past its memory limit, SIGKILL). */
  signal?: NodeJS.Signals | null;
}

/**
 * Who a failed task's error is due to, from what was measured of it: the file (ExiftoolFileFailure), the machine
 * (ExiftoolMachineFailure), or neither (the error as it was: no perl, a task ExifTool refused).
 */
export function attributeExiftoolFailure(error: unknown, reading: TaskReading | undefined, limits: Required<ExiftoolLimits>): unknown {
  const message = error instanceof Error ? error.message : '';
  const budget = `${limits.cpuBudgetMillis / 1000} s`;
  const timedOut = /^timeout: waited/.test(message);
  if (reading?.overBudget || (timedOut && reading?.cpuMillis != null && reading.cpuMillis >= limits.cpuBudgetMillis)) {
    return new ExiftoolFileFailure('cpu', `the file kept ExifTool busy past its CPU budget of ${budget} (${reading.cpuMillis ?? '?'} ms of CPU)`);
  }
  if (timedOut) {
    // Not measured (no /proc): nothing shows the file did it, and a later attempt can tell.
    const used = reading?.cpuMillis == null ? 'an unknown amount' : `${reading.cpuMillis} ms`;
    return new ExiftoolMachineFailure('starved', reading?.cpuMillis ?? null, `ExifTool reached its ${limits.taskTimeoutMillis / 1000} s deadline having used ${used} of CPU (budget ${budget}): it waited to be run`);
  }
  if (/^Process terminated before task completed/.test(message)) {
    // Past `ulimit -v` perl says "Out of memory!" and exits (1) or faults (SIGSEGV); only the kernel's OOM killer
    // (or an operator) sends SIGKILL, and the watch's own SIGKILL is read as over budget above.
    if (reading?.signal === 'SIGKILL') {
      return new ExiftoolMachineFailure('killed', reading.cpuMillis, 'ExifTool was killed during the task (SIGKILL: the pod out of memory, not its own limit)');
    }
    return new ExiftoolFileFailure('memory', `ExifTool died during the task: past its memory limit of ${limits.maxMemoryMb} MiB`);
  }
  return error;
}

/** What the watch needs of one of batch-cluster's processes. */
interface WatchedProcess {
  readonly pid: number;
  readonly startupTaskId: number;
  readonly currentTask: { readonly taskId: number } | undefined;
}

/**
 * What each task of one ExifTool did: the CPU its process used during it (perl uses none between tasks, so from when
 * it was last idle), ended past its budget, and the signal that ended it if one did. Kept per task object, which is the
 * one a failure is about.
 */
class TaskWatch {
  /** The live processes, and the CPU each had used when it was last idle. */
  private readonly processes = new Map<WatchedProcess, number>();
  private readonly readings = new WeakMap<object, TaskReading>();

  constructor(
    private readonly cpuBudgetMillis: number,
    private readonly cpuMillis: (pid: number) => number | null,
  ) {}

  readingOf(task: object): TaskReading | undefined {
    return this.readings.get(task);
  }

  started(proc: WatchedProcess): void {
    this.processes.set(proc, this.cpuMillis(proc.pid) ?? 0);
  }

  ended(proc: WatchedProcess): void {
    this.processes.delete(proc);
  }

  idle(proc: WatchedProcess): void {
    const now = this.cpuMillis(proc.pid);
    if (now !== null && this.processes.has(proc)) this.processes.set(proc, now);
  }

  /** At the task's wall deadline, while its process still runs. */
  timedOut(task: object, proc: WatchedProcess): void {
    if (!this.readings.has(task)) this.readings.set(task, { cpuMillis: this.taskCpu(proc), overBudget: false });
  }

  /** The process exited (before batch-cluster learns of it, so its task is still the current one). */
  exited(pid: number, signal: NodeJS.Signals | null): void {
    for (const proc of this.processes.keys()) {
      const task = proc.currentTask;
      if (proc.pid !== pid || !task || task.taskId === proc.startupTaskId) continue;
      const reading = this.readings.get(task);
      this.readings.set(task, reading ? { ...reading, signal } : { cpuMillis: null, overBudget: false, signal });
    }
  }

  /** Ends the process of a task past its CPU budget (its task then fails, attributed by this reading). */
  checkBudgets(): void {
    for (const proc of this.processes.keys()) {
      const task = proc.currentTask;
      // No task of ours (idle, or perl starting with its version task): what it used is no file's.
      if (!task || task.taskId === proc.startupTaskId) {
        this.idle(proc);
        continue;
      }
      const used = this.taskCpu(proc);
      if (used === null || used < this.cpuBudgetMillis || this.readings.has(task)) continue;
      this.readings.set(task, { cpuMillis: used, overBudget: true });
      try {
        process.kill(proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** CPU the process's current task has used so far, or null when it cannot be read. */
  private taskCpu(proc: WatchedProcess): number | null {
    const now = this.cpuMillis(proc.pid);
    return now === null ? null : now - (this.processes.get(proc) ?? 0);
  }
}

/**
 * One ExifTool (`-stay_open` perl process) held to `maxMemoryMb` of address space by the kernel (`ulimit -v`, set by
 * /bin/sh before it becomes perl) and each task to `cpuBudgetMillis` of CPU (read from /proc every CPU_POLL_MS; past
 * it the process is killed). Either is the file's doing (ExiftoolFileFailure): only its own task fails, the next starts
 * a new process. A task that reaches its wall deadline under its CPU budget waited for the machine, and one whose
 * process the kernel killed (SIGKILL) lost it to the machine (ExiftoolMachineFailure): a file that needs less CPU and
 * memory than its limits is never blamed, however slow or full the machine. No retry here: a file failure would fail
 * again, and a machine failure is retried by the job's own attempts (redelivered with backoff).
 */
export class BoundedExiftool extends ExifTool {
  private readonly limits: Required<ExiftoolLimits>;
  private readonly tasks: TaskWatch;
  private pending = 0;
  private watch: NodeJS.Timeout | undefined;

  constructor(options: BoundedExiftoolOptions) {
    const limits = exiftoolLimits(options);
    const tasks = new TaskWatch(limits.cpuBudgetMillis, options.cpuMillis ?? processCpuMillis);
    const args = [...(options.leadingArgs ?? []), '-stay_open', 'True', '-@', '-'];
    const processFactory: ExifToolOptions['processFactory'] = async () => {
      // `exec` keeps one process, perl itself, whose id exiftool-vendored knows and ends; LANG as exiftool-vendored sets it.
      const child = spawn('/bin/sh', ['-c', `ulimit -v ${Math.floor(options.maxMemoryMb * 1024)} && exec "$0" "$@"`, await exiftoolPath(), ...args], {
        stdio: 'pipe',
        env: { LANG: 'C' },
      });
      // Its limit and the service's other children together can pass the pod's: the kernel then ends perl, a failed task.
      preferForOutOfMemory(child);
      // Listened to before batch-cluster does, so the task it ended is still known.
      child.once('exit', (_code, signal) => {
        if (child.pid !== undefined) tasks.exited(child.pid, signal);
      });
      return child;
    };
    super({ maxProcs: 1, taskTimeoutMillis: options.taskTimeoutMillis, taskRetries: 0, processFactory });
    this.limits = limits;
    this.tasks = tasks;
    this.on('childStart', (proc) => tasks.started(proc));
    this.on('childEnd', (proc) => tasks.ended(proc));
    this.on('taskResolved', (_task, proc) => tasks.idle(proc));
    this.on('taskError', (_error, _task, proc) => tasks.idle(proc));
    // Emitted just before the task is rejected, while its process still runs.
    this.on('taskTimeout', (_ms, task, proc) => tasks.timedOut(task, proc));
  }

  /** Every task (read, write, version) goes through here: its failure is attributed to the file or the machine. */
  override async enqueueTask<T>(task: () => ExifToolTask<T>, retriable?: boolean): Promise<T> {
    let current: ExifToolTask<T> | undefined;
    this.pending += 1;
    this.watch ??= setInterval(() => this.tasks.checkBudgets(), CPU_POLL_MS).unref();
    try {
      return await super.enqueueTask(() => (current = task()), retriable);
    } catch (error) {
      // Cut short by end() (the service stopping): neither the file's doing nor worth attributing.
      if (this.ended) throw error;
      throw attributeExiftoolFailure(error, current && this.tasks.readingOf(current), this.limits);
    } finally {
      this.pending -= 1;
      if (this.pending === 0) {
        clearInterval(this.watch);
        this.watch = undefined;
      }
    }
  }
}

/** One bounded ExifTool (see BoundedExiftool). */
export function boundedExiftool(options: BoundedExiftoolOptions): BoundedExiftool {
  return new BoundedExiftool(options);
}
