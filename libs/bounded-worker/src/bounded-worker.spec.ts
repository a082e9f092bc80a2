import { join } from 'node:path';
import { BoundedWorker, WorkerFailure, WorkerFailureCode } from './bounded-worker';

type Request = { op: 'echo'; value: string; bytes?: Uint8Array } | { op: 'spin' } | { op: 'hog' } | { op: 'exit' };
interface Reply {
  id: number;
  value: string;
  bytes: number | null;
}

const FILE = join(__dirname, '__fixtures__', 'test-worker.mjs');

function make(deadlineMs = 10_000): BoundedWorker<Request, Reply> {
  return new BoundedWorker<Request, Reply>({ name: 'test', file: FILE, limits: { deadlineMs, maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } });
}

async function failureOf(promise: Promise<unknown>): Promise<WorkerFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerFailure);
  return error as WorkerFailure;
}

describe('BoundedWorker', () => {
  let worker: BoundedWorker<Request, Reply>;
  afterEach(async () => {
    await worker.close();
  });

  it('answers calls in the worker thread', async () => {
    worker = make();
    await expect(worker.call({ op: 'echo', value: 'a' })).resolves.toMatchObject({ value: 'a' });
  });

  it('abandons a call that never ends at its deadline; the next call runs on a new worker', async () => {
    worker = make(300);
    const failure = await failureOf(worker.call({ op: 'spin' }));
    expect(failure.code).toBe(WorkerFailureCode.DEADLINE);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('a call that fills the heap past its limit fails with OUT_OF_MEMORY, not the process; the next call works', async () => {
    worker = make(60_000);
    const failure = await failureOf(worker.call({ op: 'hog' }));
    expect(failure.code).toBe(WorkerFailureCode.OUT_OF_MEMORY);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('a worker that exits fails its running call with CRASHED', async () => {
    worker = make();
    const failure = await failureOf(worker.call({ op: 'exit' }));
    expect(failure.code).toBe(WorkerFailureCode.CRASHED);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });

  it('runs one call at a time: calls queued behind a crashing one are not blamed and complete', async () => {
    worker = make(300);
    const spin = worker.call({ op: 'spin' });
    const queued = [worker.call({ op: 'echo', value: '1' }), worker.call({ op: 'echo', value: '2' })];
    expect((await failureOf(spin)).code).toBe(WorkerFailureCode.DEADLINE);
    await expect(Promise.all(queued)).resolves.toMatchObject([{ value: '1' }, { value: '2' }]);
  });

  it('moves transferred buffers to the worker instead of copying them', async () => {
    worker = make();
    const bytes = new Uint8Array(1024);
    const reply = await worker.call({ op: 'echo', value: 'x', bytes }, { transfer: [bytes.buffer] });
    expect(reply.bytes).toBe(1024);
    // detached on this side: the worker owns it now
    expect(bytes.byteLength).toBe(0);
  });

  it('an aborted call stops the worker and rejects with ABORTED', async () => {
    worker = make(60_000);
    const controller = new AbortController();
    const spin = worker.call({ op: 'spin' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await failureOf(spin)).code).toBe(WorkerFailureCode.ABORTED);
    await expect(worker.call({ op: 'echo', value: 'after' })).resolves.toMatchObject({ value: 'after' });
  });
});
