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

/** Bounds and defaults, the same in every worker service. */
const WORKER_VARIABLES: readonly PrefixedVariable[] = [
  { suffix: 'MAX_PIXELS', kind: 'int', min: 1_000_000, max: 1_000_000_000, default: 100_000_000 },
  { suffix: 'MAX_INPUT_BYTES', kind: 'int', min: 1024, default: 200 * 1024 * 1024 },
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
