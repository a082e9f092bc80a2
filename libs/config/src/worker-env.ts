import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

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

/** Each setting: its variable's suffix, its bounds and its default (the same in every worker service). */
const WORKER_VARIABLES: ReadonlyArray<{ suffix: string; min: number; max?: number; default: number }> = [
  { suffix: 'MAX_PIXELS', min: 1_000_000, max: 1_000_000_000, default: 100_000_000 },
  { suffix: 'MAX_INPUT_BYTES', min: 1024, default: 200 * 1024 * 1024 },
  { suffix: 'CONCURRENCY', min: 1, max: 16, default: 1 },
  { suffix: 'MAX_ATTEMPTS', min: 1, max: 20, default: 4 },
];

// A mixin's base must be constructible with any arguments: TypeScript accepts only `any[]` there (TS2545).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EnvClass = new (...args: any[]) => object;

/**
 * The worker variables of one service, added to its environment class: `class Env extends withWorkerEnv(StorageEnv,
 * 'WATERMARK')` validates `WATERMARK_MAX_PIXELS`, `_MAX_INPUT_BYTES`, `_CONCURRENCY` and `_MAX_ATTEMPTS` with the
 * bounds and defaults every worker shares; `toWorkerSettings(env, 'WATERMARK')` reads them back.
 */
export function withWorkerEnv<TBase extends EnvClass, P extends string>(Base: TBase, prefix: P): new (...args: ConstructorParameters<TBase>) => InstanceType<TBase> & WorkerEnvOf<P> {
  class WorkerEnv extends Base {
    // The mixin constructor TypeScript requires (TS2545); environment classes take no arguments anyway.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
      super(...args);
      // The defaults; validateEnv then sets what the environment gives.
      for (const variable of WORKER_VARIABLES) {
        Object.assign(this, { [`${prefix}_${variable.suffix}`]: variable.default });
      }
    }
  }
  for (const variable of WORKER_VARIABLES) {
    const name = `${prefix}_${variable.suffix}`;
    // What the decorators on a written-out property would do: convert the string to a number, then bound it.
    Type(() => Number)(WorkerEnv.prototype, name);
    IsInt()(WorkerEnv.prototype, name);
    Min(variable.min)(WorkerEnv.prototype, name);
    if (variable.max !== undefined) Max(variable.max)(WorkerEnv.prototype, name);
  }
  return WorkerEnv as unknown as new (...args: ConstructorParameters<TBase>) => InstanceType<TBase> & WorkerEnvOf<P>;
}

export function toWorkerSettings<P extends string>(env: WorkerEnvOf<P>, prefix: P): WorkerSettings {
  const read = (suffix: string): number => env[`${prefix}_${suffix}` as keyof WorkerEnvOf<P>];
  return { maxPixels: read('MAX_PIXELS'), maxInputBytes: read('MAX_INPUT_BYTES'), concurrency: read('CONCURRENCY'), maxAttempts: read('MAX_ATTEMPTS') };
}
