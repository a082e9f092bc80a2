import { EnvClass, PrefixedVariable, withPrefixedEnv, WithVariables } from './prefixed-env';

/** What a worker service (watermark processor, ai-detector) knows about the files it processes and its job queue. */
export interface WorkerSettings {
  /** Largest image, in pixels, an engine decodes. */
  maxPixels: number;
  /** Largest input read from storage, in bytes. */
  maxInputBytes: number;
  /** Jobs processed at once by one replica (the work is CPU-bound). */
  concurrency: number;
  /** Deliveries of one job before it is parked. */
  maxAttempts: number;
}

/** The variables of `WorkerSettings` under a service's prefix, e.g. `WATERMARK_CONCURRENCY`. */
export type WorkerEnvOf<P extends string> = Record<`${P}_MAX_PIXELS` | `${P}_MAX_INPUT_BYTES` | `${P}_CONCURRENCY` | `${P}_MAX_ATTEMPTS`, number>;

/** The largest input a worker reads; also read by the uploads service, which refuses larger uploads at once (M2). */
const MAX_INPUT_BYTES: PrefixedVariable = { suffix: 'MAX_INPUT_BYTES', kind: 'int', min: 1024, default: 200 * 1024 * 1024 };

/** Bounds and defaults, the same in every worker service. */
const WORKER_VARIABLES: readonly PrefixedVariable[] = [
  { suffix: 'MAX_PIXELS', kind: 'int', min: 1_000_000, max: 1_000_000_000, default: 100_000_000 },
  MAX_INPUT_BYTES,
  { suffix: 'CONCURRENCY', kind: 'int', min: 1, max: 16, default: 1 },
  { suffix: 'MAX_ATTEMPTS', kind: 'int', min: 1, max: 20, default: 4 },
];

/**
 * The worker variables of one service, added to its environment class: `class Env extends withWorkerEnv(StorageEnv,
 * 'WATERMARK')` validates `WATERMARK_MAX_PIXELS`, `_MAX_INPUT_BYTES`, `_CONCURRENCY` and `_MAX_ATTEMPTS` with the
 * bounds and defaults every worker shares; `toWorkerSettings(env, 'WATERMARK')` reads them back.
 */
export function withWorkerEnv<TBase extends EnvClass, P extends string>(Base: TBase, prefix: P): WithVariables<TBase, WorkerEnvOf<P>> {
  return withPrefixedEnv<TBase, WorkerEnvOf<P>>(Base, prefix, WORKER_VARIABLES);
}

export function toWorkerSettings<P extends string>(env: WorkerEnvOf<P>, prefix: P): WorkerSettings {
  const read = (suffix: string): number => env[`${prefix}_${suffix}` as keyof WorkerEnvOf<P>];
  return { maxPixels: read('MAX_PIXELS'), maxInputBytes: read('MAX_INPUT_BYTES'), concurrency: read('CONCURRENCY'), maxAttempts: read('MAX_ATTEMPTS') };
}

/** The input limit variable of one worker prefix, e.g. `WATERMARK_MAX_INPUT_BYTES`. */
export type InputLimitEnvOf<P extends string> = Record<`${P}_MAX_INPUT_BYTES`, number>;

/**
 * Only a worker's `<PREFIX>_MAX_INPUT_BYTES`, with the worker's own bound and default, for a service that must
 * refuse the inputs the worker would refuse before the worker sees them (the uploads service deletes an upload
 * over the limit at once). One declaration, so both read the same variable the same way; a deployment sets it once
 * in the shared configuration (Helm `config`), never per service.
 */
export function withInputLimitEnv<TBase extends EnvClass, P extends string>(Base: TBase, prefix: P): WithVariables<TBase, InputLimitEnvOf<P>> {
  return withPrefixedEnv<TBase, InputLimitEnvOf<P>>(Base, prefix, [MAX_INPUT_BYTES]);
}

export function toInputLimit<P extends string>(env: InputLimitEnvOf<P>, prefix: P): number {
  return env[`${prefix}_MAX_INPUT_BYTES`];
}
