import { ChildProcess, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { processCpuMillis } from './process-cpu';
import { WorkerFailureCode } from './worker-failure';

/**
 * Where the work runs:
 * - `thread`: a worker_threads Worker with V8 resourceLimits. Cheap, and buffers can be transferred without a copy;
 *   but when one allocation passes the heap limit by more than the 16 MiB of leeway Node gives a worker, V8 aborts
 *   the whole process (a hostile file can ask for one big array).
 * - `process`: a child Node process (`--max-old-space-size`): its out-of-memory abort only ends the child. Messages
 *   are copied through the IPC pipe (structured clone, so typed arrays survive).
 */
export type WorkerIsolation = 'thread' | 'process';

export interface ChannelLimits {
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb?: number;
  stackSizeMb?: number;
  /** A child process's resident memory; see WorkerLimits.maxResidentMb. */
  maxResidentMb?: number;
}

/** How often a child's resident memory is read: a decoder writes its arrays at a few hundred MB/s at most. */
export const RESIDENT_CHECK_MS = 25;

/** A process's resident memory in MiB (`VmRSS` of /proc/<pid>/status), or null where it cannot be read. */
export function residentMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface ChannelEvents {
  message(reply: unknown): void;
  /** The worker is gone or unusable; called at most once. */
  failed(code: WorkerFailureCode, message: string): void;
}

/** One running worker, thread or process, behind the few operations BoundedWorker needs. */
export interface WorkerChannel {
  send(message: object, transfer: ArrayBuffer[]): void;
  /** Keeps the process alive while a call runs; an idle worker does not. */
  ref(): void;
  unref(): void;
  stop(): Promise<void>;
  /** The child process's resident memory in MiB; null for a thread or where it cannot be read. */
  residentMb(): number | null;
  /**
   * CPU the child process has used (all its threads), in ms; null for a thread (its CPU is the service's too, and
   * Node gives no thread's own) or where it cannot be read.
   */
  cpuMillis(): number | null;
}

export function openChannel(isolation: WorkerIsolation, file: string, limits: ChannelLimits, events: ChannelEvents): WorkerChannel {
  return isolation === 'process' ? processChannel(file, limits, events) : threadChannel(file, limits, events);
}

function once(events: ChannelEvents): ChannelEvents['failed'] {
  let done = false;
  return (code, message) => {
    if (done) return;
    done = true;
    events.failed(code, message);
  };
}

function threadChannel(file: string, limits: ChannelLimits, events: ChannelEvents): WorkerChannel {
  const failed = once(events);
  const worker = new Worker(file, {
    resourceLimits: {
      maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb,
      ...(limits.maxYoungGenerationSizeMb ? { maxYoungGenerationSizeMb: limits.maxYoungGenerationSizeMb } : {}),
      ...(limits.stackSizeMb ? { stackSizeMb: limits.stackSizeMb } : {}),
    },
  });
  worker.on('message', (reply: unknown) => events.message(reply));
  worker.on('error', (error: Error & { code?: string }) => {
    failed(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? WorkerFailureCode.OUT_OF_MEMORY : WorkerFailureCode.CRASHED, error.message);
  });
  worker.on('exit', (exitCode) => failed(WorkerFailureCode.CRASHED, `the worker exited with code ${exitCode}`));
  return {
    send: (message, transfer) => worker.postMessage(message, transfer),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    stop: async () => {
      await worker.terminate();
    },
    residentMb: () => null,
    cpuMillis: () => null,
  };
}

/** V8's last words when a heap limit is reached ("Reached heap limit", "JavaScript heap out of memory"). */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/i;
const STDERR_TAIL = 4096;

/** Byte arrays larger than this cross the IPC pipe in pieces of this size (see worker-port.mjs). */
export const CHUNK_BYTES = 4 * 1024 * 1024;
/** Tags shared with worker-port.mjs. */
const CHUNK = '__boundedWorkerChunk';
const CHUNKED = '__boundedWorkerChunked';

/**
 * Sends a message to a child, its large byte arrays first, in pieces, each after the previous one was written:
 * one 200 MiB message would hold the event loop for as long as the pipe takes it (seconds on a busy machine),
 * pieces leave it free between them (and take less time altogether).
 */
async function sendInPieces(child: ChildProcess, message: Record<string, unknown>): Promise<void> {
  const write = (piece: object): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      child.send(piece, (error) => (error ? reject(error) : resolve()));
    });
  const outgoing: Record<string, unknown> = { ...message };
  for (const [key, value] of Object.entries(message)) {
    if (!ArrayBuffer.isView(value) || value.byteLength <= CHUNK_BYTES) continue;
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) {
      await write({ [CHUNK]: true, key, total: bytes.byteLength, offset, data: bytes.subarray(offset, offset + CHUNK_BYTES) });
    }
    outgoing[key] = { [CHUNKED]: key };
  }
  await write(outgoing);
}

/**
 * The heap limit does not bound array buffers (a hostile file's decoded streams and images are), so a child can still
 * grow until the container runs out of memory. Its OOM score is raised to the maximum (Linux; any process may raise
 * one it owns), so that the kernel ends the child, which the parent survives as a failed call, and not the service.
 */
export function preferForOutOfMemory(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    writeFileSync(`/proc/${child.pid}/oom_score_adj`, '1000');
  } catch {
    // not Linux, or no /proc: the heap limit and the deadline remain
  }
}

/**
 * Reads the child's resident memory every RESIDENT_CHECK_MS; past `maxResidentMb` the child is killed and its call
 * fails with OUT_OF_MEMORY (reported before the exit, which `failed` then ignores). No limit or no /proc: no watch.
 */
function watchResidentMemory(child: ChildProcess, maxResidentMb: number | undefined, failed: ChannelEvents['failed']): NodeJS.Timeout | null {
  const pid = child.pid;
  if (maxResidentMb === undefined || pid === undefined || residentMb(pid) === null) return null;
  const timer = setInterval(() => {
    const resident = residentMb(pid);
    if (resident !== null && resident > maxResidentMb) {
      clearInterval(timer);
      failed(WorkerFailureCode.OUT_OF_MEMORY, `the worker passed its memory limit of ${maxResidentMb} MiB`);
      child.kill('SIGKILL');
    }
  }, RESIDENT_CHECK_MS);
  // The watch never keeps the process alive (an idle child is unref'd too).
  timer.unref();
  return timer;
}

function processChannel(file: string, limits: ChannelLimits, events: ChannelEvents): WorkerChannel {
  const failed = once(events);
  const execArgv = [`--max-old-space-size=${limits.maxOldGenerationSizeMb}`];
  if (limits.maxYoungGenerationSizeMb) execArgv.push(`--max-semi-space-size=${Math.max(1, Math.floor(limits.maxYoungGenerationSizeMb / 3))}`);
  if (limits.stackSizeMb) execArgv.push(`--stack-size=${Math.floor(limits.stackSizeMb * 1024)}`);
  // Own execArgv: the parent's (ts-node's -r, inspector flags) do not apply to a plain .mjs worker.
  const child: ChildProcess = fork(file, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  preferForOutOfMemory(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  child.on('message', (reply: unknown) => events.message(reply));
  child.on('error', (error) => failed(WorkerFailureCode.CRASHED, error.message));
  const watch = watchResidentMemory(child, limits.maxResidentMb, failed);
  // `close` comes after stderr is drained: its tail tells an out-of-memory abort from another death.
  child.on('close', (code, signal) => {
    if (watch) clearInterval(watch);
    if (OUT_OF_MEMORY.test(stderr)) failed(WorkerFailureCode.OUT_OF_MEMORY, 'the worker reached its heap limit');
    // Our own kills (stop, the watches) come after their failure was reported, which `once` keeps: this one is not ours.
    else if (signal === 'SIGKILL') failed(WorkerFailureCode.KILLED, 'the worker was killed (SIGKILL: the pod out of memory, not its own limit)');
    else failed(WorkerFailureCode.CRASHED, `the worker exited (${signal ?? `code ${code}`})`);
  });
  return {
    residentMb: () => (child.pid === undefined ? null : residentMb(child.pid)),
    cpuMillis: () => (child.pid === undefined ? null : processCpuMillis(child.pid)),
    send: (message) => {
      sendInPieces(child, message as Record<string, unknown>).catch((error: unknown) => {
        failed(WorkerFailureCode.CRASHED, `the worker cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
      });
    },
    ref: () => {
      child.ref();
      child.channel?.ref();
      (child.stderr as (NodeJS.ReadableStream & { ref?: () => void }) | null)?.ref?.();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
      (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        // An idle child is unref'd; without a ref its 'exit' would not keep this process alive, and a caller
        // awaiting stop() as its last act (a CLI closing its renderer) would end with that promise unsettled.
        child.ref();
        child.kill('SIGKILL');
      });
    },
  };
}
