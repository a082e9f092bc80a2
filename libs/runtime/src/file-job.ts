import { createHash } from 'node:crypto';
import { ExaminedBytes, loggedObjectKey, MessageContract, Streams } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { ConsumerDefinition, HandlerContext, HEARTBEAT_JOB_ACK_WAIT_MS } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { inSpan } from '@cp/tracing';
import { Logger } from '@nestjs/common';

/** A stored file a job reads. */
export interface StoredInput {
  bucket: string;
  key: string;
}

/** SHA-256 and size of bytes a job read: what its outcome (and any report made from it) is about. */
export function examinedBytesOf(bytes: Buffer): ExaminedBytes {
  return { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

/** Why a file can never succeed: it fails with a public code instead of being retried. */
export interface FileRejection<TCode extends string> {
  code: TCode;
  /** For the log only; never shown to a client. */
  reason: string;
}

/**
 * Thrown by a step (usually `begin`, when it would record something of the order) when an operator erased the
 * job's order or account: the job is dropped (acknowledged, nothing stored, no outcome recorded), never retried nor
 * parked. Its order no longer exists, so nobody waits for the outcome.
 */
export class ErasedOrderError extends Error {
  constructor(readonly orderId: string) {
    super(`order ${orderId} was erased`);
  }
}

/** An input past the size limit: the file fails, or the job has a result of its own that needs no reading. */
export type OversizeOutcome<T extends FileJobTypes> = { reject: FileRejection<T['code']> } | { result: T['result'] };

/** The types one kind of file job works with. */
export interface FileJobTypes {
  job: { orderId: string };
  /** What `state` `begin` prepares for the later steps (an issuance, a run record); `void` when none. */
  state: unknown;
  /** What the engine returns. */
  result: unknown;
  /** What `writeOutput` stored, recorded with the outcome (usually the completed event). */
  outcome: unknown;
  /** The public failure codes of the job's failed event. */
  code: string;
}

/**
 * One worker job on stored files (ai-detector, watermark embed, extract, anti-AI), always in the same steps:
 *   1. `begin`: what must exist before the work (an issuance, a run record); runs on every delivery, so idempotent.
 *   2. read every input with limits: stat them all, a missing one throws (retried: the upload may still land),
 *      one larger than `maxInputBytes()` goes to `oversize` and is not read, then read them (bounded again).
 *   3. `run` the engine, with the attempt's AbortSignal.
 *   4. `writeOutput`: store what the engine made and say what was stored.
 *   5. record the outcome through the outbox in the handler's transaction (`recordCompleted` / `recordFailed`).
 * Any step may throw an error `rejectionOf` maps to a public code: the file then fails for good (step 5 records
 * `recordFailed`). Every other error propagates, so the work queue retries the job until its attempts run out
 * (the consumer's `onExhausted`), and the attempt's deadline aborts the signal and the transaction.
 */
export abstract class FileJob<T extends FileJobTypes> {
  protected readonly logger = new Logger(this.constructor.name);

  protected abstract readonly storage: ObjectStorage;

  /** Largest input the engine is given, in bytes. */
  protected abstract maxInputBytes(): number;

  /** The stored files the engine reads, in the order `run` receives them. */
  protected abstract inputsOf(job: T['job']): StoredInput[];

  protected abstract begin(job: T['job']): Promise<T['state']>;

  protected abstract oversize(job: T['job'], size: number): OversizeOutcome<T>;

  protected abstract run(inputs: Buffer[], job: T['job'], state: T['state'], signal: AbortSignal): Promise<T['result']>;

  /** `inputs` is empty when the result came from `oversize`. */
  protected abstract writeOutput(job: T['job'], result: T['result'], state: T['state'], inputs: Buffer[]): Promise<T['outcome']>;

  /** The error's public code when the file can never succeed; `null` when a retry may help. */
  protected abstract rejectionOf(error: unknown): FileRejection<T['code']> | null;

  protected abstract recordCompleted(tx: Transaction, job: T['job'], outcome: T['outcome'], state: T['state']): Promise<void>;

  protected abstract recordFailed(tx: Transaction, job: T['job'], code: T['code'], state: T['state']): Promise<void>;

  async execute(job: T['job'], context: HandlerContext): Promise<void> {
    let state: T['state'];
    try {
      state = await this.begin(job);
    } catch (error) {
      if (error instanceof ErasedOrderError) {
        this.dropErased(job);
        return;
      }
      throw error;
    }
    let outcome: T['outcome'];
    try {
      const read = await this.readInputs(job);
      if ('reject' in read) {
        await this.fail(job, read.reject, state, context);
        return;
      }
      const inputs = 'inputs' in read ? read.inputs : undefined;
      // The engine's work is the span an operator looks for first in a slow order's trace.
      const result = inputs === undefined ? (read as { result: T['result'] }).result : await inSpan(`engine ${this.constructor.name}`, { attributes: { 'cp.order.id': job.orderId, 'cp.input_count': inputs.length } }, () => this.run(inputs, job, state, context.signal));
      outcome = await this.writeOutput(job, result, state, 'inputs' in read ? read.inputs : []);
    } catch (error) {
      if (error instanceof ErasedOrderError) {
        this.dropErased(job);
        return;
      }
      const rejection = this.rejectionOf(error);
      if (!rejection) throw error;
      await this.fail(job, rejection, state, context);
      return;
    }
    await context.transaction((tx) => this.recordCompleted(tx, job, outcome, state));
  }

  private dropErased(job: T['job']): void {
    this.logger.log({ orderId: job.orderId }, 'job of an erased order dropped: nothing stored');
  }

  private async readInputs(job: T['job']): Promise<OversizeOutcome<T> | { inputs: Buffer[] }> {
    const inputs = this.inputsOf(job);
    const limit = this.maxInputBytes();
    const infos = await Promise.all(inputs.map((input) => this.storage.stat(input.bucket, input.key)));
    const missing = inputs.find((_input, index) => !infos[index]);
    if (missing) {
      // The key's file name stays out: this message is logged and kept in the order's attempt records.
      throw new Error(`input ${loggedObjectKey(missing.key)} is not in storage`);
    }
    const oversize = infos.find((info) => (info?.size ?? 0) > limit);
    if (oversize) {
      return this.oversize(job, oversize.size);
    }
    return { inputs: await Promise.all(inputs.map((input) => this.storage.getBuffer(input.bucket, input.key, limit))) };
  }

  private async fail(job: T['job'], rejection: FileRejection<T['code']>, state: T['state'], context: HandlerContext): Promise<void> {
    this.logger.warn({ orderId: job.orderId, inputs: this.inputsOf(job).map((input) => loggedObjectKey(input.key)), code: rejection.code, reason: rejection.reason }, 'file failed with a public code');
    await context.transaction((tx) => this.recordFailed(tx, job, rejection.code, state));
  }
}

/** Redelivery delays of a worker job; the last repeats. */
export const WORKER_JOB_BACKOFF_MS = [2000, 10_000, 60_000];

/** The worker settings a job consumer uses (`WorkerSettings` of `@cp/config`). */
export interface WorkerJobSettings {
  concurrency?: number;
  maxAttempts: number;
}

/**
 * The consumer of a worker job on the JOBS work queue: a thin adapter from the queue to the use case, every worker
 * with the same backoff and the heartbeat ack wait. What an exhausted job leaves visible is the caller's
 * (`onExhausted`); the attempt's deadline is the job's `deadlineMs` or `JOB_DEADLINE_MS_<DURABLE>`.
 */
export function workerJobConsumer<TJob extends object>(options: {
  durable: string;
  message: MessageContract<TJob>;
  settings: WorkerJobSettings;
  handle(job: TJob, context: HandlerContext): Promise<void>;
  onExhausted(job: TJob): Promise<void>;
  ackWaitMs?: number;
}): ConsumerDefinition<TJob> {
  return {
    durable: options.durable,
    stream: Streams.jobs.name,
    message: options.message,
    concurrency: options.settings.concurrency,
    maxAttempts: options.settings.maxAttempts,
    backoffMs: WORKER_JOB_BACKOFF_MS,
    ackWaitMs: options.ackWaitMs ?? HEARTBEAT_JOB_ACK_WAIT_MS,
    handle: (job, context) => options.handle(job, context),
    onExhausted: (job) => options.onExhausted(job),
  };
}
