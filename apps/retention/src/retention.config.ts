import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';
import { EXPIRE_ORDERS_MAX_BATCH } from '@cp/contracts';
import { IsInt, Max, Min } from 'class-validator';

export class RetentionEnv extends StorageEnv {
  override PORT: number = 3107;

  /** How often the sweep looks for orders whose retention period ended (it drains every due batch per tick). */
  @IsInt()
  @Min(200)
  RETENTION_SWEEP_INTERVAL_MS: number = 10_000;

  /** Orders per batch: one transaction, one `orders.expire` call, then their objects deleted. */
  @IsInt()
  @Min(1)
  @Max(EXPIRE_ORDERS_MAX_BATCH)
  RETENTION_BATCH_SIZE: number = 200;

  /** Orders whose objects are deleted in parallel within a batch. */
  @IsInt()
  @Min(1)
  @Max(64)
  RETENTION_DELETE_CONCURRENCY: number = 8;

  /** After the first deletion, the order's prefix is listed once more this much later (objects written by in-flight jobs). */
  @IsInt()
  @Min(0)
  RETENTION_RECHECK_MINUTES: number = 60;

  /**
   * How long a sweep owns the batch it claimed (the orders call and the deletes run outside any transaction).
   * A sweep that crashed leaves its batch to the next one once this has passed.
   */
  @IsInt()
  @Min(70)
  RETENTION_LEASE_SECONDS: number = 900;
}

export interface RetentionSettings {
  sweepIntervalMs: number;
  batchSize: number;
  deleteConcurrency: number;
  recheckMs: number;
  leaseMs: number;
}

export type RetentionConfig = CoreConfig & { storage: StorageConfig; retention: RetentionSettings };

export function loadRetentionConfig(source: NodeJS.ProcessEnv = process.env): RetentionConfig {
  const env = validateEnv(RetentionEnv, source);
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    retention: {
      sweepIntervalMs: env.RETENTION_SWEEP_INTERVAL_MS,
      batchSize: env.RETENTION_BATCH_SIZE,
      deleteConcurrency: env.RETENTION_DELETE_CONCURRENCY,
      recheckMs: env.RETENTION_RECHECK_MINUTES * 60_000,
      leaseMs: env.RETENTION_LEASE_SECONDS * 1000,
    },
  };
}

export const RETENTION_CONFIG = Symbol('RETENTION_CONFIG');
