// The worker pipeline's steps with an in-memory store and a recording engine: what is read, run, written and recorded.
import { Transaction } from '@cp/database';
import { inlineHandlerContext } from '@cp/messaging/testing';
import { HEARTBEAT_JOB_ACK_WAIT_MS } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Logger } from '@nestjs/common';
import { ErasedOrderError, FileJob, FileRejection, OversizeOutcome, StoredInput, workerJobConsumer, WORKER_JOB_BACKOFF_MS } from './file-job';

interface Job {
  orderId: string;
  keys: string[];
  /** Past the size limit: fail the file (`reject`) or report a result of its own (`result`). */
  whenOversize: 'reject' | 'result';
}

interface TestTypes {
  job: Job;
  state: string;
  result: string;
  outcome: string;
  code: 'TOO_LARGE' | 'INVALID';
}

class Rejected extends Error {}

class TestJob extends FileJob<TestTypes> {
  readonly objects = new Map<string, Buffer>();
  readonly reads: string[] = [];
  readonly log: string[] = [];
  signal?: AbortSignal;
  engine: (inputs: Buffer[]) => Promise<string> = (inputs) => Promise.resolve(inputs.map(String).join('+'));

  protected readonly storage = {
    stat: (_bucket: string, key: string) => Promise.resolve(this.objects.has(key) ? { size: this.objects.get(key)!.length, etag: 'e' } : null),
    getBuffer: (_bucket: string, key: string) => {
      this.reads.push(key);
      return Promise.resolve(this.objects.get(key)!);
    },
  } as unknown as ObjectStorage;

  protected maxInputBytes(): number {
    return 10;
  }

  protected inputsOf(job: Job): StoredInput[] {
    return job.keys.map((key) => ({ bucket: 'in', key }));
  }

  erased = false;

  protected begin(job: Job): Promise<string> {
    this.log.push('begin');
    return this.erased ? Promise.reject(new ErasedOrderError(job.orderId)) : Promise.resolve(`state of ${job.orderId}`);
  }

  protected oversize(job: Job, size: number): OversizeOutcome<TestTypes> {
    return job.whenOversize === 'reject' ? { reject: { code: 'TOO_LARGE', reason: `${size} bytes` } } : { result: 'unsupported' };
  }

  protected run(inputs: Buffer[], _job: Job, state: string, signal: AbortSignal): Promise<string> {
    this.log.push(`run with ${state}`);
    this.signal = signal;
    return this.engine(inputs);
  }

  protected writeOutput(_job: Job, result: string, _state: string, inputs: Buffer[]): Promise<string> {
    this.log.push(`write ${result} from ${inputs.length} inputs`);
    return Promise.resolve(`stored ${result}`);
  }

  protected rejectionOf(error: unknown): FileRejection<'INVALID'> | null {
    return error instanceof Rejected ? { code: 'INVALID', reason: error.message } : null;
  }

  protected recordCompleted(_tx: Transaction, _job: Job, outcome: string, state: string): Promise<void> {
    this.log.push(`completed: ${outcome} (${state})`);
    return Promise.resolve();
  }

  protected recordFailed(_tx: Transaction, _job: Job, code: string, state: string): Promise<void> {
    this.log.push(`failed: ${code} (${state})`);
    return Promise.resolve();
  }
}

function setup(objects: Record<string, string>): TestJob {
  const job = new TestJob();
  for (const [key, data] of Object.entries(objects)) job.objects.set(key, Buffer.from(data));
  return job;
}

describe('FileJob', () => {
  it('reads every input, runs the engine on them in order with the attempt signal, writes, then records the outcome', async () => {
    const fileJob = setup({ a: 'one', b: 'two' });
    const context = inlineHandlerContext();
    await fileJob.execute({ orderId: '9', keys: ['b', 'a'], whenOversize: 'reject' }, context);
    expect(fileJob.reads).toEqual(['b', 'a']);
    expect(fileJob.log).toEqual(['begin', 'run with state of 9', 'write two+one from 2 inputs', 'completed: stored two+one (state of 9)']);
    expect(fileJob.signal).toBe(context.signal);
  });

  it('throws on a missing input (the queue retries it) without running or recording anything', async () => {
    const fileJob = setup({ a: 'one' });
    await expect(fileJob.execute({ orderId: '9', keys: ['a', 'gone'], whenOversize: 'reject' }, inlineHandlerContext())).rejects.toThrow('input gone is not in storage');
    expect(fileJob.reads).toEqual([]);
    expect(fileJob.log).toEqual(['begin']);
  });

  it('fails an input past the limit with its code without reading it, or takes the oversize result without the engine', async () => {
    const rejecting = setup({ a: 'one', big: 'x'.repeat(11) });
    await rejecting.execute({ orderId: '9', keys: ['a', 'big'], whenOversize: 'reject' }, inlineHandlerContext());
    expect(rejecting.reads).toEqual([]);
    expect(rejecting.log).toEqual(['begin', 'failed: TOO_LARGE (state of 9)']);

    const resulting = setup({ big: 'x'.repeat(11) });
    await resulting.execute({ orderId: '9', keys: ['big'], whenOversize: 'result' }, inlineHandlerContext());
    expect(resulting.reads).toEqual([]);
    expect(resulting.log).toEqual(['begin', 'write unsupported from 0 inputs', 'completed: stored unsupported (state of 9)']);
  });

  it('fails the file on an error the job maps to a public code, and rethrows any other error for a retry', async () => {
    const rejected = setup({ a: 'one' });
    rejected.engine = () => Promise.reject(new Rejected('not an image'));
    await rejected.execute({ orderId: '9', keys: ['a'], whenOversize: 'reject' }, inlineHandlerContext());
    expect(rejected.log).toEqual(['begin', 'run with state of 9', 'failed: INVALID (state of 9)']);

    const crashed = setup({ a: 'one' });
    crashed.engine = () => Promise.reject(new Error('out of memory'));
    await expect(crashed.execute({ orderId: '9', keys: ['a'], whenOversize: 'reject' }, inlineHandlerContext())).rejects.toThrow('out of memory');
    expect(crashed.log).toEqual(['begin', 'run with state of 9']);
  });

  it("drops the job of an erased order (begin or a later step says so): nothing read, stored or recorded, and no retry", async () => {
    const erased = setup({ a: 'one' });
    erased.erased = true;
    await erased.execute({ orderId: '9', keys: ['a'], whenOversize: 'reject' }, inlineHandlerContext());
    expect(erased.reads).toEqual([]);
    expect(erased.log).toEqual(['begin']);

    const erasedWhileRunning = setup({ a: 'one' });
    erasedWhileRunning.engine = () => Promise.reject(new ErasedOrderError('9'));
    await erasedWhileRunning.execute({ orderId: '9', keys: ['a'], whenOversize: 'reject' }, inlineHandlerContext());
    expect(erasedWhileRunning.log).toEqual(['begin', 'run with state of 9']);
  });
});

describe('FileJob and personal data', () => {
  afterEach(() => jest.restoreAllMocks());

  // An input's key ends with the client's file name, often a person's name: logs and attempt records outlive the order.
  const named = '1/9/inputs/5/Jane Doe passport.png';

  it('names a failed file by its ids, never by its file name, in the log', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const fileJob = setup({ [named]: 'x'.repeat(11) });
    await fileJob.execute({ orderId: '9', keys: [named], whenOversize: 'reject' }, inlineHandlerContext());
    expect(fileJob.log).toEqual(['begin', 'failed: TOO_LARGE (state of 9)']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls)).toContain('1/9/inputs/5/[name]');
    expect(JSON.stringify(warn.mock.calls)).not.toContain('Jane Doe');
  });

  it('names a missing input by its ids in the error the attempt records and logs', async () => {
    const fileJob = setup({});
    const failure = fileJob.execute({ orderId: '9', keys: [named], whenOversize: 'reject' }, inlineHandlerContext());
    await expect(failure).rejects.toThrow('input 1/9/inputs/5/[name] is not in storage');
  });
});

describe('workerJobConsumer', () => {
  it('gives every worker the JOBS stream, the worker backoff and the heartbeat ack wait unless told otherwise', async () => {
    const handled: string[] = [];
    const message = { subject: 'job.test', payload: Object, kind: 'job' } as unknown as Parameters<typeof workerJobConsumer<{ id: string }>>[0]['message'];
    const definition = workerJobConsumer<{ id: string }>({
      durable: 'test-worker',
      message,
      settings: { concurrency: 3, maxAttempts: 4 },
      handle: (job) => Promise.resolve(void handled.push(`handle ${job.id}`)),
      onExhausted: (job) => Promise.resolve(void handled.push(`exhausted ${job.id}`)),
    });
    expect(definition).toMatchObject({ durable: 'test-worker', stream: 'JOBS', concurrency: 3, maxAttempts: 4, backoffMs: WORKER_JOB_BACKOFF_MS, ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS });
    await definition.handle({ id: '1' }, inlineHandlerContext());
    await definition.onExhausted!({ id: '2' }, 'e-2', new Error('x'));
    expect(handled).toEqual(['handle 1', 'exhausted 2']);
    expect(workerJobConsumer({ durable: 'd', message, settings: { maxAttempts: 1 }, ackWaitMs: 5, handle: () => Promise.resolve(), onExhausted: () => Promise.resolve() }).ackWaitMs).toBe(5);
  });
});
