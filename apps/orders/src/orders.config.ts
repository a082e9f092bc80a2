import { ConfigValidationError, ipList, IsHttpOrigin, IsIpList, CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, toUploadWindowMs, validateEnv, withUploadWindowEnv } from '@cp/config';
import { IsInt, Max, Min } from 'class-validator';

/** `UPLOAD_WINDOW_HOURS` (default 12): orders whose files are not all uploaded within it fail with ORDER_TIMEOUT (spec 3.1). */
export class OrdersEnv extends withUploadWindowEnv(StorageEnv) {
  override PORT: number = 3101;

  /** Time from creation to `expiresAt` (default 30 days). */
  @IsInt()
  @Min(1)
  @Max(24 * 365)
  ORDER_RETENTION_HOURS: number = 720;

  @IsInt()
  @Min(200)
  @Max(86_400_000)
  UPLOAD_WINDOW_SWEEP_INTERVAL_MS: number = 60_000;

  /**
   * An order `inProgress` this long without any progress (no transition, file arriving, output started or
   * completed, or type result: whatever sets its `updatedAt`) is stuck: the sweeper fails it with
   * PROCESSING_TIMEOUT and gives its credits back. Default 6 hours; at least 1 minute.
   */
  @IsInt()
  @Min(60_000)
  @Max(30 * 24 * 3600_000)
  STUCK_ORDER_MAX_AGE_MS: number = 6 * 3600_000;

  /**
   * Test-key orders an account may create in any 24 hours (they cost no credits, so nothing else bounds the rows,
   * reports and webhook deliveries they leave). Past it a test order is refused with 429 RATE_LIMIT_EXCEEDED.
   */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  TEST_ORDERS_PER_DAY: number = 1000;

  /**
   * Jobs of one account that each work queue (embed, extract, package, anti-AI, AI detection) may hold at once, sent
   * and not finished; its further jobs wait in the outbox, oldest first, and go as its earlier ones finish. So an
   * account that sends a thousand files (or files that each take the processor minutes) has other accounts' jobs
   * wait behind at most this many of its own, not behind all of them. Set it to about the worker slots one account
   * may fill alone (replicas × `*_CONCURRENCY`): a lone account uses at most this many of them. Default 4.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  QUEUED_JOBS_PER_ACCOUNT: number = 4;

  /** How often each replica looks for stuck orders (they claim rows with SKIP LOCKED, so replicas never collide). */
  @IsInt()
  @Min(200)
  @Max(86_400_000)
  STUCK_ORDER_SWEEP_INTERVAL_MS: number = 60_000;

  /**
   * Anti-AI zero-copy targets must be HTTPS on a public address; these IPs are accepted besides (a local
   * test stack's S3 server on loopback). Empty in production.
   */
  @IsIpList()
  ANTI_AI_TARGET_ALLOWED_IPS: string = '';

  /** Base address clients use: anti-AI result URLs point at the gateway's results route under it. */
  @IsHttpOrigin()
  PUBLIC_BASE_URL: string = 'http://127.0.0.1:3000';
}

export interface OrdersConfig extends CoreConfig {
  storage: StorageConfig;
  retentionMs: number;
  uploadWindowMs: number;
  uploadWindowSweepIntervalMs: number;
  stuckOrders: { maxAgeMs: number; sweepIntervalMs: number };
  testOrdersPerDay: number;
  queuedJobsPerAccount: number;
  antiAi: { allowedTargetIps: string[] };
  publicBaseUrl: string;
}

export function loadOrdersConfig(source: NodeJS.ProcessEnv = process.env): OrdersConfig {
  const env = validateEnv(OrdersEnv, source);
  // Private zero-copy targets are for a local test stack's S3 server only; the processor refuses them too.
  if (env.NODE_ENV === 'production' && ipList(env.ANTI_AI_TARGET_ALLOWED_IPS).length > 0) {
    throw new ConfigValidationError(['ANTI_AI_TARGET_ALLOWED_IPS'], ['ANTI_AI_TARGET_ALLOWED_IPS: must be empty in production']);
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    retentionMs: env.ORDER_RETENTION_HOURS * 3600_000,
    uploadWindowMs: toUploadWindowMs(env),
    uploadWindowSweepIntervalMs: env.UPLOAD_WINDOW_SWEEP_INTERVAL_MS,
    stuckOrders: { maxAgeMs: env.STUCK_ORDER_MAX_AGE_MS, sweepIntervalMs: env.STUCK_ORDER_SWEEP_INTERVAL_MS },
    testOrdersPerDay: env.TEST_ORDERS_PER_DAY,
    queuedJobsPerAccount: env.QUEUED_JOBS_PER_ACCOUNT,
    antiAi: { allowedTargetIps: ipList(env.ANTI_AI_TARGET_ALLOWED_IPS) },
    publicBaseUrl: env.PUBLIC_BASE_URL,
  };
}

export const ORDERS_CONFIG = Symbol('ORDERS_CONFIG');
