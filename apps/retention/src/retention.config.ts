import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';
import { EXPIRE_ORDERS_MAX_BATCH, EXPIRY_SCHEDULES_MAX_PAGE, FAILED_ORDERS_MAX_PAGE } from '@cp/contracts';
import { IsInt, Max, Min } from 'class-validator';

export class RetentionEnv extends StorageEnv {
  override PORT: number = 3107;

  /** How often the sweep looks for orders whose retention period ended (it drains every due batch per tick). */
  @IsInt()
  @Min(200)
  @Max(86_400_000)
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
  @Max(10_080)
  RETENTION_RECHECK_MINUTES: number = 60;

  /**
   * A failed order's objects (inputs, and outputs stored before the failure) are deleted this long after its
   * `failed` status event is handled, instead of at its `expiresAt`: its credits came back, so keeping up to 100
   * inputs of 200 MiB for the whole retention would be storage for free. Not at once: a job of the order may still
   * be queued or running and read an input. Keep it above the longest a job can still run after the failure (job
   * deadline × attempts with their backoff: about 1–2 hours with the defaults), hence at least 3 hours. The order's record, its `failed`
   * status and its expiry at `expiresAt` are unchanged.
   */
  @IsInt()
  @Min(3)
  @Max(24 * 365)
  RETENTION_FAILED_ORDER_GRACE_HOURS: number = 24;

  /**
   * How long a sweep owns the batch it claimed (the orders call and the deletes run outside any transaction).
   * A sweep that crashed leaves its batch to the next one once this has passed.
   */
  @IsInt()
  @Min(70)
  @Max(86_400)
  RETENTION_LEASE_SECONDS: number = 900;

  /**
   * How often the reconciliation asks orders for the expiries of orders whose retention ended since its last pass,
   * and schedules those no status event scheduled (the EVENTS stream is bounded: an outage of retention longer than
   * it keeps events, or a dropped event, would otherwise keep an order's files for ever). The same run then reads the
   * orders that failed since (`orders.failed-orders`) and brings forward the deletion of the objects of those whose
   * `failed` event was missed (`ReconcileFailedOrdersUseCase`). Each run reads every page of both.
   */
  @IsInt()
  @Min(200)
  @Max(86_400_000)
  RETENTION_RECONCILE_INTERVAL_MS: number = 300_000;

  /**
   * Orders whose `expiresAt` passed less than this long ago are left to the next pass: margin for the clocks of
   * orders and retention, and the status event of their creation normally scheduled them a retention period ago.
   * Failed orders are read once their `failedAt` is this old, and at least `FAILED_ORDER_COMMIT_MARGIN_MS`.
   */
  @IsInt()
  @Min(0)
  @Max(24 * 3600)
  RETENTION_RECONCILE_GRACE_SECONDS: number = 300;

  /** Orders per `orders.expiry-schedules` and `orders.failed-orders` page (one statement on orders' index, one insert here). */
  @IsInt()
  @Min(1)
  @Max(Math.min(EXPIRY_SCHEDULES_MAX_PAGE, FAILED_ORDERS_MAX_PAGE))
  RETENTION_RECONCILE_PAGE_SIZE: number = 500;

  /**
   * Pause between two pages of one pass, so a long walk (the first, from the oldest order) does not hammer orders.
   * At most 10 s: a stop waits for the pause in progress.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  RETENTION_RECONCILE_PAUSE_MS: number = 1000;
}

export interface RetentionSettings {
  sweepIntervalMs: number;
  batchSize: number;
  deleteConcurrency: number;
  recheckMs: number;
  leaseMs: number;
  /** From a failed order's `failed` event to the deletion of its objects (`RETENTION_FAILED_ORDER_GRACE_HOURS`). */
  failedOrderGraceMs: number;
}

/**
 * The reconciliations with orders, of the schedule (`ReconcileSchedulesUseCase`) and of failed orders
 * (`ReconcileFailedOrdersUseCase`); their lease is the sweep's `leaseMs`.
 */
export interface ReconcileSettings {
  intervalMs: number;
  graceMs: number;
  pageSize: number;
  pauseMs: number;
}

export type RetentionConfig = CoreConfig & { storage: StorageConfig; retention: RetentionSettings; reconcile: ReconcileSettings };

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
      failedOrderGraceMs: env.RETENTION_FAILED_ORDER_GRACE_HOURS * 3600_000,
    },
    reconcile: {
      intervalMs: env.RETENTION_RECONCILE_INTERVAL_MS,
      graceMs: env.RETENTION_RECONCILE_GRACE_SECONDS * 1000,
      pageSize: env.RETENTION_RECONCILE_PAGE_SIZE,
      pauseMs: env.RETENTION_RECONCILE_PAUSE_MS,
    },
  };
}

export const RETENTION_CONFIG = Symbol('RETENTION_CONFIG');
