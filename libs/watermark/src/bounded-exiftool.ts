import { preferForOutOfMemory } from '@cp/bounded-worker';
import { ExifTool, ExifToolOptions, exiftoolPath, ExifToolTask } from 'exiftool-vendored';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/**
 * Share of a task's wall deadline that is its CPU budget (read: 10 s, rewrite: 15 s). A file that keeps ExifTool on the
 * CPU that long is the file's doing: legitimate metadata needs less (5.7 MB of Photoshop XMP, near the largest a PNG
 * may hand it: 4.8 s to read, 5.2 s to rewrite; a 1.7 MB ComfyUI workflow 0.1 s), and a task that reaches its deadline
 * with less has mostly waited for a CPU (an overloaded machine, a paused process), which no file causes. At a half, a
 * busy file is refused after half its deadline on an idle machine, and as the file's fault while the machine gives it
 * at least half a core; given less, it reaches the deadline first and is retried like a starved task.
 */
export const EXIFTOOL_CPU_SHARE = 0.5;

/** How often the CPU of a running task is read (a few microseconds each, only while a task runs). */
const CPU_POLL_MS = 200;

export interface ExiftoolLimits {
  /** Address space of the perl process (`ulimit -v`); past it perl dies and the file is at fault. */
  maxMemoryMb: number;
  /** Wall time of one task; a task that reaches it without using its CPU budget failed for the machine, not the file. */
  taskTimeoutMillis: number;
  /** CPU time (user + system) one task may use: past it the file is at fault. Default: EXIFTOOL_CPU_SHARE of the deadline. */
  cpuBudgetMillis?: number;
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
 * ExifTool reached its wall deadline without using its CPU budget: it mostly waited to be run (an overloaded machine,
 * a paused process), which is not the file's doing. Thrown on, so the job is retried like any other transient failure.
 */
export class ExiftoolStarved extends Error {
  constructor(
    readonly cpuMillis: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ExiftoolStarved';
  }
}

/** Whether an ExifTool task failed because of the file (past its memory limit or its CPU budget). */
export function isExiftoolFileFailure(error: unknown): error is ExiftoolFileFailure {
  return error instanceof ExiftoolFileFailure;
}

/** What was measured of one failed task. */
export interface TaskCpuReading {
  /** CPU the task used (at its deadline, or when the watch ended it), or null when it could not be read. */
  cpuMillis: number | null;
  /** The CPU watch ended the process because the task passed its budget. */
  overBudget: boolean;
}

/**
 * Who a failed task's error is due to, from what was measured of it: the file (ExiftoolFileFailure), the machine
 * (ExiftoolStarved), or neither (the error as it was: no perl, a task ExifTool refused).
 */
export function attributeExiftoolFailure(error: unknown, reading: TaskCpuReading | undefined, limits: Required<ExiftoolLimits>): unknown {
  const message = error instanceof Error ? error.message : '';
  const budget = `${limits.cpuBudgetMillis / 1000} s`;
  if (reading?.overBudget || (/^timeout: waited/.test(message) && reading?.cpuMillis != null && reading.cpuMillis >= limits.cpuBudgetMillis)) {
    return new ExiftoolFileFailure('cpu', `the file kept ExifTool busy past its CPU budget of ${budget} (${reading.cpuMillis ?? '?'} ms of CPU)`);
  }
  if (/^timeout: waited/.test(message)) {
    // Not measured (no /proc): nothing shows the file did it, and a later attempt can tell.
    const used = reading?.cpuMillis == null ? 'an unknown amount' : `${reading.cpuMillis} ms`;
    return new ExiftoolStarved(reading?.cpuMillis ?? null, `ExifTool reached its ${limits.taskTimeoutMillis / 1000} s deadline having used ${used} of CPU (budget ${budget}): it waited to be run`);
  }
  if (/^Process terminated before task completed/.test(message)) {
    return new ExiftoolFileFailure('memory', `ExifTool died during the task: past its memory limit of ${limits.maxMemoryMb} MiB`);
  }
  return error;
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on every usual Linux). */
let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'latin1', timeout: 5000 }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU time (utime + stime) a process has used, in ms, from /proc/<pid>/stat; null when gone or not Linux. */
export function processCpuMillis(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command (field 2) is in parentheses and may hold spaces: utime and stime are the 12th and 13th fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
}

/** What the CPU watch needs of one of batch-cluster's processes. */
interface WatchedProcess {
  readonly pid: number;
  readonly startupTaskId: number;
  readonly currentTask: { readonly taskId: number } | undefined;
}

/**
 * One ExifTool (`-stay_open` perl process) held to `maxMemoryMb` of address space by the kernel (`ulimit -v`, set by
 * /bin/sh before it becomes perl) and each task to `cpuBudgetMillis` of CPU (read from /proc every CPU_POLL_MS; past
 * it the process is killed). Either is the file's doing (ExiftoolFileFailure): only its own task fails, the next starts
 * a new process. A task that reaches its wall deadline under its CPU budget waited for the machine (ExiftoolStarved):
 * a file that needs less CPU than the budget is never blamed, however slow the machine. No retry here: a file failure
 * would fail again, and a starved task is retried by the job's own attempts (redelivered with backoff).
 */
export class BoundedExiftool extends ExifTool {
  private readonly limits: Required<ExiftoolLimits>;
  private readonly cpuMillis: (pid: number) => number | null;
  /** The live processes, and the CPU each had used when it was last idle (perl uses none between tasks). */
  private readonly processes = new Map<WatchedProcess, number>();
  /** What was measured of a task that failed or was ended (the task object is the one its error is about). */
  private readonly readings = new WeakMap<object, TaskCpuReading>();
  private pending = 0;
  private watch: NodeJS.Timeout | undefined;

  constructor(options: BoundedExiftoolOptions) {
    const args = [...(options.leadingArgs ?? []), '-stay_open', 'True', '-@', '-'];
    const processFactory: ExifToolOptions['processFactory'] = async () => {
      // `exec` keeps one process, perl itself, whose id exiftool-vendored knows and ends; LANG as exiftool-vendored sets it.
      const child = spawn('/bin/sh', ['-c', `ulimit -v ${Math.floor(options.maxMemoryMb * 1024)} && exec "$0" "$@"`, await exiftoolPath(), ...args], {
        stdio: 'pipe',
        env: { LANG: 'C' },
      });
      // Its limit and the service's other children together can pass the pod's: the kernel then ends perl, a failed task.
      preferForOutOfMemory(child);
      return child;
    };
    super({ maxProcs: 1, taskTimeoutMillis: options.taskTimeoutMillis, taskRetries: 0, processFactory });
    this.limits = {
      maxMemoryMb: options.maxMemoryMb,
      taskTimeoutMillis: options.taskTimeoutMillis,
      cpuBudgetMillis: options.cpuBudgetMillis ?? options.taskTimeoutMillis * EXIFTOOL_CPU_SHARE,
    };
    this.cpuMillis = options.cpuMillis ?? processCpuMillis;
    this.on('childStart', (proc) => this.processes.set(proc, this.cpuMillis(proc.pid) ?? 0));
    this.on('childEnd', (proc) => this.processes.delete(proc));
    this.on('taskResolved', (_task, proc) => this.idle(proc));
    this.on('taskError', (_error, _task, proc) => this.idle(proc));
    // Emitted just before the task is rejected, while its process still runs.
    this.on('taskTimeout', (_ms, task, proc) => {
      if (!this.readings.has(task)) this.readings.set(task, { cpuMillis: this.taskCpu(proc), overBudget: false });
    });
  }

  /** Every task (read, write, version) goes through here: its failure is attributed to the file or the machine. */
  override async enqueueTask<T>(task: () => ExifToolTask<T>, retriable?: boolean): Promise<T> {
    let current: ExifToolTask<T> | undefined;
    this.pending += 1;
    this.watch ??= setInterval(() => this.checkBudgets(), CPU_POLL_MS).unref();
    try {
      return await super.enqueueTask(() => (current = task()), retriable);
    } catch (error) {
      throw attributeExiftoolFailure(error, current && this.readings.get(current), this.limits);
    } finally {
      this.pending -= 1;
      if (this.pending === 0) {
        clearInterval(this.watch);
        this.watch = undefined;
      }
    }
  }

  /** CPU the process's current task has used so far, or null when it cannot be read. */
  private taskCpu(proc: WatchedProcess): number | null {
    const now = this.cpuMillis(proc.pid);
    return now === null ? null : now - (this.processes.get(proc) ?? 0);
  }

  private idle(proc: WatchedProcess): void {
    const now = this.cpuMillis(proc.pid);
    if (now !== null && this.processes.has(proc)) this.processes.set(proc, now);
  }

  private checkBudgets(): void {
    for (const proc of this.processes.keys()) {
      const task = proc.currentTask;
      // No task of ours (idle, or perl starting with its version task): what it used is no file's.
      if (!task || task.taskId === proc.startupTaskId) {
        this.idle(proc);
        continue;
      }
      const used = this.taskCpu(proc);
      if (used === null || used < this.limits.cpuBudgetMillis || this.readings.has(task)) continue;
      this.readings.set(task, { cpuMillis: used, overBudget: true });
      try {
        // Its task then fails ("Process terminated before task completed"), attributed by this reading.
        process.kill(proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** One bounded ExifTool (see BoundedExiftool). */
export function boundedExiftool(options: BoundedExiftoolOptions): BoundedExiftool {
  return new BoundedExiftool(options);
}
