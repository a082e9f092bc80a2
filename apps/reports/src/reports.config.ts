import {
  ConfigValidationError,
  CoreConfig,
  StorageConfig,
  StorageEnv,
  toBoolean,
  toCoreConfig,
  toStorageConfig,
  validateEnv,
} from '@cp/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNotEmpty, IsString, Max, Min } from 'class-validator';

// Explicit property types: decorator metadata (and so the env string → number conversion) needs them.
export class ReportsEnv extends StorageEnv {
  override PORT: number = 3105;

  /** Reports generated at once per replica (each holds two input files and a PDF in memory). */
  @IsInt()
  @Min(1)
  @Max(32)
  REPORTS_CONCURRENCY: number = 2;

  /** A worker that stops sending heartbeats (crashed) loses its job to another one after this long. */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  REPORTS_JOB_ACK_WAIT_MS: number = 60_000;

  /** A report `processing` (or `queued`) this long without finishing is queued again by the sweep. */
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  REPORTS_STUCK_TIMEOUT_MS: number = 600_000;

  @IsInt()
  @Min(200)
  @Max(86_400_000)
  REPORTS_SWEEP_INTERVAL_MS: number = 30_000;

  /** Input files up to this size get a thumbnail (they are read into memory); larger ones are only hashed. */
  @IsInt()
  @Min(1024)
  REPORTS_THUMBNAIL_MAX_BYTES: number = 64 * 1024 * 1024;

  /** Who issues the reports: printed in the verification section. */
  @IsString()
  @IsNotEmpty()
  REPORTS_ISSUER: string = 'Content Protection Platform — Reports Service';

  /**
   * Test-only fault injection, refused in production: an order whose inspected file name contains
   * `report-fault` fails generation; one containing `report-slow` pauses REPORTS_FAULT_SLOW_MS mid-generation.
   */
  @Transform(toBoolean)
  @IsBoolean()
  REPORTS_FAULT_INJECTION: boolean = false;

  @IsInt()
  @Min(0)
  @Max(600_000)
  REPORTS_FAULT_SLOW_MS: number = 5000;
}

export interface ReportsSettings {
  concurrency: number;
  jobAckWaitMs: number;
  stuckTimeoutMs: number;
  sweepIntervalMs: number;
  thumbnailMaxBytes: number;
  issuer: string;
  faultInjection: { enabled: boolean; slowMs: number };
}

export interface ReportsConfig extends CoreConfig {
  storage: StorageConfig;
  reports: ReportsSettings;
}

/** Injection token of the reports-specific settings. */
export const REPORTS_SETTINGS = Symbol('REPORTS_SETTINGS');

export function loadReportsConfig(source: NodeJS.ProcessEnv = process.env): ReportsConfig {
  const env = validateEnv(ReportsEnv, source);
  if (env.NODE_ENV === 'production' && env.REPORTS_FAULT_INJECTION) {
    throw new ConfigValidationError(['REPORTS_FAULT_INJECTION'], ['REPORTS_FAULT_INJECTION: is not allowed in production']);
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    reports: {
      concurrency: env.REPORTS_CONCURRENCY,
      jobAckWaitMs: env.REPORTS_JOB_ACK_WAIT_MS,
      stuckTimeoutMs: env.REPORTS_STUCK_TIMEOUT_MS,
      sweepIntervalMs: env.REPORTS_SWEEP_INTERVAL_MS,
      thumbnailMaxBytes: env.REPORTS_THUMBNAIL_MAX_BYTES,
      issuer: env.REPORTS_ISSUER,
      faultInjection: { enabled: env.REPORTS_FAULT_INJECTION, slowMs: env.REPORTS_FAULT_SLOW_MS },
    },
  };
}
