import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BoundedWorker, CallUsage, deadlineFailure } from './bounded-worker';
import { processCpuMillis } from './process-cpu';
import { WorkerIsolation } from './worker-channel';
import { isWorkerMachineFailure, WorkerFailure, WorkerFailureCode } from './worker-failure';

type Request =
  | { op: 'echo'; value: string; bytes?: Uint8Array }
  | { op: 'spin' }
  | { op: 'hog' }
  | { op: 'exit' }
  | { op: 'pid' }
  | { op: 'retire' }
  | { op: 'oom-score' }
  | { op: 'big' }
  | { op: 'buffers'; mb: number };
interface Reply {
  id: number;
  value: string;
  bytes: number | null;
  sum: number;
}

const FILE = join(__dirname, '__fixtures__', 'test-worker.mjs');

function make(isolation: WorkerIsolation, deadlineMs = 10_000, cpuShare?: number): BoundedWorker<Request, Reply> {
  return new BoundedWorker<Request, Reply>({ name: 'test', file: FILE, isolation, limits: { deadlineMs, maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8, cpuShare } });
}

/**
 * A call stopped for running too long: DEADLINE, or in a process STARVED where the machine gave it less than half a
 * core before its short deadline (these tests are about the queue, not about whom to blame).
 */
const OVERRUN = (mode: WorkerIsolation): WorkerFailureCode[] => (mode === 'thread' ? [WorkerFailureCode.DEADLINE] : [WorkerFailureCode.DEADLINE, WorkerFailureCode.STARVED]);

async function failureOf(promise: Promise<unknown>): Promise<WorkerFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerFailure);
  return error as WorkerFailure;
}

describe.each<WorkerIsolation>(['thread', 'process'])('BoundedWorker (%s)', (mode) => {
  let worker: BoundedWorker<Request, Reply>;
  afterEach(async () => {
    await worker.close();
  });

  it('close() of an idle worker settles when nothing else keeps the process alive (a CLI closing it last)', async () => {
    worker = make(mode);
    const root = resolve(__dirname, '../../..');
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', join(root, 'tools/register.js'), join(__dirname, '__fixtures__', 'close-idle-cli.ts'), mode], { cwd: root });
    expect(stdout).toBe('before close; closed');
  });

  it('answers calls in the worker', async () => {
    worker = make(mode);
    await expect(worker.call({ op: 'echo', value: 'a' })).resolves.toMatchObject({ value: 'a' });
  });

  it('abandons a call that never ends at its deadline; the next call runs on a new worker', async () => {
    worker = make(mode);
    // the calls after it keep the default deadline: a new process may take a while to start on a loaded machine
    const failure = await failureOf(worker.call({ op: 'spin' }, { deadlineMs: 300 }));
    expect(OVERRUN(mode)).toContain(failure.code);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('a call that fills the heap past its limit fails with OUT_OF_MEMORY, not the process; the next call works', async () => {
    worker = make(mode, 60_000);
    const failure = await failureOf(worker.call({ op: 'hog' }));
    expect(failure.code).toBe(WorkerFailureCode.OUT_OF_MEMORY);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('a worker that exits fails its running call with CRASHED', async () => {
    worker = make(mode);
    const failure = await failureOf(worker.call({ op: 'exit' }));
    expect(failure.code).toBe(WorkerFailureCode.CRASHED);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('runs one call at a time: calls queued behind a crashing one are not blamed and complete', async () => {
    worker = make(mode);
    const spin = worker.call({ op: 'spin' }, { deadlineMs: 300 });
    const queued = [worker.call({ op: 'echo', value: '1' }), worker.call({ op: 'echo', value: '2' })];
    expect(OVERRUN(mode)).toContain((await failureOf(spin)).code);
    await expect(Promise.all(queued)).resolves.toMatchObject([{ value: '1' }, { value: '2' }]);
  });

  it('tells a call when it starts, not when it is queued (the time a call waits is not its own)', async () => {
    worker = make(mode);
    const events: string[] = [];
    const spin = worker.call({ op: 'spin' }, { deadlineMs: 300, onStart: () => events.push('spin started') });
    const queued = worker.call({ op: 'echo', value: 'q' }, { onStart: () => events.push('echo started') }).then(() => events.push('echo answered'));
    expect(events).toEqual(['spin started']);
    await failureOf(spin);
    await queued;
    expect(events).toEqual(['spin started', 'echo started', 'echo answered']);
  });

  it('hands buffers over (moved to a thread, copied to a process)', async () => {
    worker = make(mode);
    const bytes = new Uint8Array(1024);
    const reply = await worker.call({ op: 'echo', value: 'x', bytes }, { transfer: [bytes.buffer] });
    expect(reply.bytes).toBe(1024);
    // a thread owns it now (detached here); a process got a copy
    expect(bytes.byteLength).toBe(mode === 'thread' ? 0 : 1024);
  });

  it('hands over arrays larger than one IPC piece whole', async () => {
    worker = make(mode);
    const bytes = new Uint8Array(9 * 1024 * 1024 + 5);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) % 251;
    let expected = 0;
    for (let i = 0; i < bytes.length; i += 4096) expected += bytes[i];
    const reply = await worker.call({ op: 'echo', value: 'x', bytes });
    expect(reply).toMatchObject({ bytes: bytes.length, sum: expected });
  });

  it('a reply asking to retire its worker is delivered, and the next call runs on a new worker', async () => {
    worker = make(mode);
    const first = await worker.call({ op: 'pid' });
    const retired = await worker.call({ op: 'retire' });
    expect(retired.value).toBe(first.value);
    const next = await worker.call({ op: 'pid' });
    expect(next.value).not.toBe(first.value);
  });

  it('a new deadline keeps the idle worker; a new heap limit or CPU share starts the next call on a new one', async () => {
    worker = make(mode);
    const first = (await worker.call({ op: 'pid' })).value;
    worker.configure({ deadlineMs: 5000 });
    expect((await worker.call({ op: 'pid' })).value).toBe(first);
    worker.configure({ maxOldGenerationSizeMb: 48 });
    const second = (await worker.call({ op: 'pid' })).value;
    expect(second).not.toBe(first);
    worker.configure({ cpuShare: 0.25 });
    expect((await worker.call({ op: 'pid' })).value).not.toBe(second);
  });

  it('an aborted call stops the worker and rejects with ABORTED', async () => {
    worker = make(mode, 60_000);
    const controller = new AbortController();
    const spin = worker.call({ op: 'spin' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await failureOf(spin)).code).toBe(WorkerFailureCode.ABORTED);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });
});

describe('deadlineFailure: who a call stopped for time is due to, from the CPU it used', () => {
  it('at or past its CPU budget the input kept the worker busy (DEADLINE), under it the call waited for the machine (STARVED)', () => {
    const busy = deadlineFailure('test', 1000, 500, 500);
    expect(busy).toMatchObject({ code: WorkerFailureCode.DEADLINE, cpuMillis: 500 });
    expect(busy.message).toContain('past its CPU budget of 500 ms');
    expect(isWorkerMachineFailure(busy)).toBe(false);
    const starved = deadlineFailure('test', 1000, 500, 120);
    expect(starved).toMatchObject({ code: WorkerFailureCode.STARVED, cpuMillis: 120 });
    expect(starved.message).toContain('having used 120 ms of CPU (budget 500 ms)');
    expect(isWorkerMachineFailure(starved)).toBe(true);
  });

  it('not measured (a thread, no /proc), or a budget too small for /proc\'s 10 ms clock: DEADLINE, the input\'s, as before CPU was read', () => {
    expect(deadlineFailure('test', 1000, 500, null)).toMatchObject({ code: WorkerFailureCode.DEADLINE, cpuMillis: null });
    // a call whose deadline a document's budget cut to 50 ms: 0 or 10 ms read says nothing of the machine
    expect(deadlineFailure('test', 50, 25, 0)).toMatchObject({ code: WorkerFailureCode.DEADLINE });
  });

  it('only STARVED and KILLED are the machine\'s', () => {
    const machine = Object.values(WorkerFailureCode).filter((code) => isWorkerMachineFailure(new WorkerFailure(code, 'test', '')));
    expect(machine.sort()).toEqual([WorkerFailureCode.KILLED, WorkerFailureCode.STARVED]);
    expect(isWorkerMachineFailure(new Error('STARVED'))).toBe(false);
  });
});

describe('processCpuMillis', () => {
  it('reads the CPU a process used, and null for one that is gone', () => {
    expect(processCpuMillis(process.pid)).toBeGreaterThan(0);
    expect(processCpuMillis(2 ** 30)).toBeNull();
  });
});

describe('BoundedWorker (process): a call stopped for time is blamed on the input or the machine by its CPU', () => {
  /** The worker's process id, from a call (the worker is then running and warm). */
  async function pidOf(worker: BoundedWorker<Request, Reply>): Promise<number> {
    const { value } = await worker.call({ op: 'pid' });
    return Number(/^process (\d+)$/.exec(value)?.[1]);
  }

  it('a call that burns its CPU budget is stopped as the input\'s doing (DEADLINE) long before its deadline; the next call works', async () => {
    // 60 s of deadline, 300 ms of CPU: only the budget can end the spin within the test's time
    const worker = make('process', 60_000, 0.005);
    try {
      const failure = await failureOf(worker.call({ op: 'spin' }));
      expect(failure.code).toBe(WorkerFailureCode.DEADLINE);
      expect(failure.message).toContain('past its CPU budget of 300 ms');
      expect(failure.cpuMillis).toBeGreaterThanOrEqual(300);
      expect(isWorkerMachineFailure(failure)).toBe(false);
      await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
    } finally {
      await worker.close();
    }
  });

  it('a call given its own CPU budget (a share of a larger one) is held to it, and each started call reports what it used', async () => {
    // 60 s of deadline, whose share would be 30 s of CPU: the call's own 300 ms ends the spin
    const worker = make('process', 60_000);
    const used: CallUsage[] = [];
    try {
      const failure = await failureOf(worker.call({ op: 'spin' }, { cpuBudgetMs: 300, onEnd: (usage) => used.push(usage) }));
      expect(failure.code).toBe(WorkerFailureCode.DEADLINE);
      expect(failure.message).toContain('past its CPU budget of 300 ms');
      await worker.call({ op: 'echo', value: 'after' }, { onEnd: (usage) => used.push(usage) });
      expect(used).toHaveLength(2);
      expect(used[0].cpuMs).toBeGreaterThanOrEqual(300);
      expect(used[0].wallMs).toBeGreaterThan(0);
      expect(used[1].cpuMs).not.toBeNull();
    } finally {
      await worker.close();
    }
  });

  it('a call whose worker is paused (SIGSTOP: it uses no CPU) until its deadline is the machine\'s (STARVED); the next call works', async () => {
    const worker = make('process');
    try {
      const pid = await pidOf(worker);
      process.kill(pid, 'SIGSTOP');
      const failure = await failureOf(worker.call({ op: 'echo', value: 'late' }, { deadlineMs: 500 }));
      expect(failure.code).toBe(WorkerFailureCode.STARVED);
      expect(failure.cpuMillis).toBeLessThan(250);
      expect(isWorkerMachineFailure(failure)).toBe(true);
      // the paused worker was replaced (SIGKILL ends a stopped process too)
      expect(await pidOf(worker)).not.toBe(pid);
    } finally {
      await worker.close();
    }
  });

  it('a worker killed from outside (SIGKILL, as the kernel\'s OOM killer does) fails its call as the machine\'s (KILLED)', async () => {
    const worker = make('process', 60_000);
    try {
      const pid = await pidOf(worker);
      const spin = worker.call({ op: 'spin' });
      process.kill(pid, 'SIGKILL');
      const failure = await failureOf(spin);
      expect(failure.code).toBe(WorkerFailureCode.KILLED);
      expect(isWorkerMachineFailure(failure)).toBe(true);
      await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
    } finally {
      await worker.close();
    }
  });

  it('a worker that dies by its own doing (exit) stays CRASHED, not the machine\'s', async () => {
    const worker = make('process');
    try {
      const failure = await failureOf(worker.call({ op: 'exit' }));
      expect(failure.code).toBe(WorkerFailureCode.CRASHED);
      expect(isWorkerMachineFailure(failure)).toBe(false);
    } finally {
      await worker.close();
    }
  });
});

describe('BoundedWorker (process): one allocation far past the limit', () => {
  it('ends the child only (in a thread, V8 would abort the whole process); the next call works', async () => {
    const worker = make('process', 60_000);
    try {
      const failure = await failureOf(worker.call({ op: 'big' }));
      expect(failure.code).toBe(WorkerFailureCode.OUT_OF_MEMORY);
      await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
    } finally {
      await worker.close();
    }
  });
});

describe('BoundedWorker (process): resident memory past maxResidentMb', () => {
  const watched = (): BoundedWorker<Request, Reply> =>
    new BoundedWorker<Request, Reply>({ name: 'test', file: FILE, isolation: 'process', limits: { deadlineMs: 60_000, maxOldGenerationSizeMb: 32, maxResidentMb: 200 } });

  it('array buffers the heap limit does not see: the child is killed, the call fails with OUT_OF_MEMORY, the next call works', async () => {
    const worker = watched();
    try {
      // 600 MB of buffers under a 32 MB heap: without the watch the call succeeds.
      const failure = await failureOf(worker.call({ op: 'buffers', mb: 600 }));
      expect(failure.code).toBe(WorkerFailureCode.OUT_OF_MEMORY);
      expect(failure.message).toContain('memory limit of 200 MiB');
      await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
    } finally {
      await worker.close();
    }
  });

  it('a worker holding more than retireAboveResidentShare of its limit after a call is replaced before the next', async () => {
    const sharing = (share: number): BoundedWorker<Request, Reply> =>
      new BoundedWorker<Request, Reply>({ name: 'test', file: FILE, isolation: 'process', limits: { deadlineMs: 60_000, maxOldGenerationSizeMb: 32, maxResidentMb: 200 }, retireAboveResidentShare: share });
    // An idle Node child holds some tens of MiB: above 5 % of 200 MiB, far below 90 %.
    for (const [share, replaced] of [
      [0.05, true],
      [0.9, false],
    ] as const) {
      const worker = sharing(share);
      try {
        const first = await worker.call({ op: 'pid' });
        const next = await worker.call({ op: 'pid' });
        expect(next.value !== first.value).toBe(replaced);
      } finally {
        await worker.close();
      }
    }
  });

  it('a call within the limit is not disturbed', async () => {
    const worker = watched();
    try {
      await expect(worker.call({ op: 'buffers', mb: 64 })).resolves.toMatchObject({ value: '4' });
    } finally {
      await worker.close();
    }
  });
});

describe('BoundedWorker (process): the kernel picks the child first when memory runs out', () => {
  it('raises the child’s OOM score to the maximum where /proc exists (array buffers escape the heap limit)', async () => {
    const worker = make('process');
    try {
      const reply = await worker.call({ op: 'oom-score' });
      const ownScore = existsSync('/proc/self/oom_score_adj') ? readFileSync('/proc/self/oom_score_adj', 'utf8').trim() : 'none';
      expect(reply.value).toBe(ownScore === 'none' ? 'none' : '1000');
    } finally {
      await worker.close();
    }
  });
});
