import { ConfigValidationError, CoreConfig, ipList, IsHttpOrigin, IsIpList, StorageConfig, StorageEnv, toBoolean, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import path from 'node:path';

/**
 * Development-only key for webhook secrets at rest. Production refuses to start without its own key, so a
 * database dump together with this public value never reveals a production secret.
 */
const DEV_SECRET_ENCRYPTION_KEY = 'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTMyYiE=';

// Explicit property types: decorator metadata (and so the env string → number conversion) needs them.
export class WebhooksEnv extends StorageEnv {
  override PORT: number = 3106;

  /** AES-256-GCM key for webhook secrets: 32 bytes, base64 (or 64 hex characters). Required in production. */
  @IsOptional()
  @Matches(/^([A-Za-z0-9+/]{43}=|[0-9a-fA-F]{64})$/, { message: 'must be 32 bytes as base64 or 64 hex characters' })
  WEBHOOK_SECRET_ENCRYPTION_KEY?: string;

  /** Local development only: accept plain http:// webhook URLs (refused in production). */
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP: boolean = false;

  /** Comma-separated IP addresses that deliveries may reach although private/loopback (e.g. 127.0.0.1,::1 locally). Refused in production. */
  @IsIpList()
  WEBHOOK_ALLOWED_TARGET_IPS: string = '';

  /** How often the scheduler looks for due deliveries. */
  @IsInt()
  @Min(50)
  @Max(10_000)
  WEBHOOK_DISPATCH_INTERVAL_MS: number = 250;

  /** Deliveries in flight per service replica, over all endpoints. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_CONCURRENCY: number = 32;

  /** Deliveries in flight per endpoint and replica, so one slow receiver cannot take every slot. */
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: number = 4;

  /**
   * Deliveries in flight per account and replica, over all its endpoints: an account with many webhooks (and a
   * backlog on each) cannot take every slot of the replica from the other accounts.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_CONCURRENCY_PER_ACCOUNT: number = 8;

  /**
   * Webhooks an account may have in each key mode (live and test counted apart). Every order event becomes one
   * delivery row per webhook, inserted in one statement: the ceiling keeps that statement far below
   * PostgreSQL's 65,535 bind parameters (14 per row, both modes together).
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_PER_ACCOUNT_MODE: number = 20;

  /**
   * Days a delivery in a final state (SUCCESS, FAILED) is kept after it ended, then pruned. Longer than the
   * 7-day range of "retry failed events" (spec 6.3), so a range retry always finds its week.
   */
  @IsInt()
  @Min(8)
  @Max(3650)
  WEBHOOK_DELIVERY_RETENTION_DAYS: number = 30;

  /** How often the pruning of old deliveries runs (each run deletes every due batch). */
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  WEBHOOK_DELIVERY_PRUNE_INTERVAL_MS: number = 600_000;

  /** Deliveries deleted per statement by the pruning, so no statement holds many row locks or runs long. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_DELIVERY_PRUNE_BATCH_SIZE: number = 1000;

  /** SMTP connection URL for failure e-mails (smtp:// or smtps://); without it mails are written to MAIL_OUTBOX_DIR. */
  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** Limit of each SMTP stage (connect, greeting, socket inactivity) for failure e-mails. */
  @IsInt()
  @Min(500)
  @Max(120_000)
  SMTP_TIMEOUT_MS: number = 10_000;

  @IsString()
  MAIL_FROM: string = 'Content Protection <no-reply@content-protection.local>';

  /** Directory the local file transport writes .eml files to (relative to the working directory). */
  @IsString()
  MAIL_OUTBOX_DIR: string = path.join('tmp', 'mail');

  /** Base address clients use: anti-AI `downloadUrl`s point at the gateway's results route under it. */
  @IsHttpOrigin()
  PUBLIC_BASE_URL: string = 'http://127.0.0.1:3000';
}

export interface WebhooksSettings {
  secretEncryptionKey: Buffer;
  allowHttp: boolean;
  allowedTargetIps: string[];
  dispatchIntervalMs: number;
  maxConcurrency: number;
  maxConcurrencyPerEndpoint: number;
  maxConcurrencyPerAccount: number;
  /** Webhooks per account in each key mode. */
  maxWebhooksPerMode: number;
  publicBaseUrl: string;
  deliveryRetention: DeliveryRetentionSettings;
}

/** The pruning of deliveries in a final state (`PruneDeliveriesUseCase`). */
export interface DeliveryRetentionSettings {
  /** How long a SUCCESS or FAILED delivery is kept after it ended. */
  keepMs: number;
  intervalMs: number;
  batchSize: number;
}

export interface MailSettings {
  smtpUrl: string | undefined;
  /** connectionTimeout, greetingTimeout and socketTimeout of the SMTP transport. */
  timeoutMs: number;
  from: string;
  outboxDir: string;
}

export interface WebhooksConfig extends CoreConfig {
  storage: StorageConfig;
  webhooks: WebhooksSettings;
  mail: MailSettings;
}

/** Injection token of the webhooks-specific settings. */
export const WEBHOOKS_SETTINGS = Symbol('WEBHOOKS_SETTINGS');
export const MAIL_SETTINGS = Symbol('MAIL_SETTINGS');

function parsesAsUrl(value: string): boolean {
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

function decodeKey(value: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
}

export function loadWebhooksConfig(source: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const env = validateEnv(WebhooksEnv, source);
  const problems: string[] = [];
  const variables: string[] = [];
  const production = env.NODE_ENV === 'production';
  if (production && !env.WEBHOOK_SECRET_ENCRYPTION_KEY) {
    variables.push('WEBHOOK_SECRET_ENCRYPTION_KEY');
    problems.push('WEBHOOK_SECRET_ENCRYPTION_KEY: is required in production');
  }
  if (production && env.WEBHOOK_ALLOW_HTTP) {
    variables.push('WEBHOOK_ALLOW_HTTP');
    problems.push('WEBHOOK_ALLOW_HTTP: is not allowed in production');
  }
  // The allow-list lets deliveries reach private and loopback addresses: a local test stack's receivers only.
  if (production && ipList(env.WEBHOOK_ALLOWED_TARGET_IPS).length > 0) {
    variables.push('WEBHOOK_ALLOWED_TARGET_IPS');
    problems.push('WEBHOOK_ALLOWED_TARGET_IPS: is not allowed in production');
  }
  // The pattern alone let through what the mailer cannot parse (`smtp://mail:port`): its constructor then threw
  // 'Invalid URL' at start, naming nothing. The URL holds a password, so the message never echoes it.
  if (env.SMTP_URL && !parsesAsUrl(env.SMTP_URL)) {
    variables.push('SMTP_URL');
    problems.push('SMTP_URL: must be an smtp:// or smtps:// URL a URL parser reads (host, a port from 1 to 65535)');
  }
  if (production && !env.SMTP_URL) {
    variables.push('SMTP_URL');
    problems.push('SMTP_URL: is required in production');
  }
  if (problems.length > 0) {
    throw new ConfigValidationError(variables, problems);
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    webhooks: {
      secretEncryptionKey: decodeKey(env.WEBHOOK_SECRET_ENCRYPTION_KEY ?? DEV_SECRET_ENCRYPTION_KEY),
      allowHttp: env.WEBHOOK_ALLOW_HTTP,
      allowedTargetIps: ipList(env.WEBHOOK_ALLOWED_TARGET_IPS),
      dispatchIntervalMs: env.WEBHOOK_DISPATCH_INTERVAL_MS,
      maxConcurrency: env.WEBHOOK_MAX_CONCURRENCY,
      maxConcurrencyPerEndpoint: env.WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT,
      maxConcurrencyPerAccount: env.WEBHOOK_MAX_CONCURRENCY_PER_ACCOUNT,
      maxWebhooksPerMode: env.WEBHOOK_MAX_PER_ACCOUNT_MODE,
      publicBaseUrl: env.PUBLIC_BASE_URL,
      deliveryRetention: {
        keepMs: env.WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * 3600_000,
        intervalMs: env.WEBHOOK_DELIVERY_PRUNE_INTERVAL_MS,
        batchSize: env.WEBHOOK_DELIVERY_PRUNE_BATCH_SIZE,
      },
    },
    mail: { smtpUrl: env.SMTP_URL, timeoutMs: env.SMTP_TIMEOUT_MS, from: env.MAIL_FROM, outboxDir: path.resolve(env.MAIL_OUTBOX_DIR) },
  };
}
