import {
  ConfigValidationError,
  CoreConfig,
  ipList,
  IsHttpOrigin,
  IsIpList,
  toBoolean,
  StorageConfig,
  StorageEnv,
  toCoreConfig,
  toInputLimit,
  toStorageConfig,
  toUploadWindowMs,
  validateEnv,
  withInputLimitEnv,
  withUploadWindowEnv,
} from '@cp/config';
import { InputLimitWorker } from '@cp/contracts';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

const DEV_TEST_UPLOAD_SECRET = 'dev-only-test-upload-secret';

/**
 * `WATERMARK_MAX_INPUT_BYTES` and `AI_DETECTION_MAX_INPUT_BYTES` are the workers' own variables (same declaration,
 * bound and default): an upload over the limit of its order's type is deleted at once and fails the order.
 * `UPLOAD_WINDOW_HOURS` is the orders service's (same declaration): the reconciliation stops checking slots past it.
 */
export class UploadsEnv extends withUploadWindowEnv(withInputLimitEnv(withInputLimitEnv(StorageEnv, 'WATERMARK'), 'AI_DETECTION')) {
  override PORT: number = 3102;

  /** Base address of the public API: test-key upload URLs point at its sink. */
  @IsHttpOrigin()
  PUBLIC_BASE_URL: string = 'http://127.0.0.1:3000';

  /** Signs and verifies test-key upload tokens. Required in production. */
  @IsString()
  @MinLength(16)
  TEST_UPLOAD_SECRET = DEV_TEST_UPLOAD_SECRET;

  /** At most 7 days: storage (SigV4) refuses to presign a longer validity, so a larger value failed every order's upload URLs. */
  @IsInt()
  @Min(60)
  @Max(604_800)
  UPLOAD_URL_SECONDS: number = 900;

  @IsInt()
  @Min(1024)
  SOURCE_FETCH_MAX_BYTES: number = 32 * 1024 * 1024;

  /** Wall-clock budget of one source download (connect, answer, whole body): a source that trickles ends here. */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  SOURCE_FETCH_DEADLINE_MS: number = 120_000;

  /**
   * Source URLs of one account being fetched or queued for fetching at once (`OutboxShare`): its other files wait in
   * this service's outbox, oldest first, so one account's orders of slow URLs (each up to SOURCE_FETCH_DEADLINE_MS,
   * three attempts) never stand in front of every other account's fetches. Default 4 (each replica fetches 4 at once).
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  SOURCE_FETCHES_PER_ACCOUNT: number = 4;

  /** Test only: let the URL fetcher reach private addresses (never in production). */
  @Transform(toBoolean)
  @IsBoolean()
  SOURCE_FETCH_ALLOW_PRIVATE: boolean = false;

  /** Test only: IPs the URL fetcher may reach although private (an e2e stack's hostile test server); refused in production. */
  @IsIpList()
  SOURCE_FETCH_ALLOWED_IPS: string = '';

  @IsOptional()
  @IsString()
  SOURCE_FETCH_EXTRA_CA_FILE?: string;

  @IsInt()
  @Min(500)
  @Max(86_400_000)
  RECONCILE_INTERVAL_MS: number = 30_000;

  /** A slot is checked against storage once it has waited this long without a notification. */
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  RECONCILE_MIN_AGE_MS: number = 10_000;
}

export interface UploadsConfig extends CoreConfig {
  storage: StorageConfig;
  publicBaseUrl: string;
  testUploadSecret: string;
  uploadUrlSeconds: number;
  sourceFetch: { maxBytes: number; deadlineMs: number; perAccount: number; allowPrivate: boolean; allowedIps: string[]; extraCaFile?: string };
  reconcile: { intervalMs: number; minAgeMs: number };
  /** `UPLOAD_WINDOW_HOURS` of the orders service: a pending order fails this long after its creation (ORDER_TIMEOUT). */
  uploadWindowMs: number;
  /** Largest input each worker reads, in bytes (the workers' `<PREFIX>_MAX_INPUT_BYTES`). */
  inputLimits: Record<InputLimitWorker, number>;
}

export function loadUploadsConfig(source: NodeJS.ProcessEnv = process.env): UploadsConfig {
  const env = validateEnv(UploadsEnv, source);
  if (env.NODE_ENV === 'production') {
    const unsafe = [
      ...(env.TEST_UPLOAD_SECRET === DEV_TEST_UPLOAD_SECRET ? ['TEST_UPLOAD_SECRET'] : []),
      ...(env.SOURCE_FETCH_ALLOW_PRIVATE ? ['SOURCE_FETCH_ALLOW_PRIVATE'] : []),
      ...(ipList(env.SOURCE_FETCH_ALLOWED_IPS).length > 0 ? ['SOURCE_FETCH_ALLOWED_IPS'] : []),
    ];
    if (unsafe.length > 0) {
      throw new ConfigValidationError(unsafe, unsafe.map((name) => `${name}: must be set to a production value`));
    }
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    publicBaseUrl: env.PUBLIC_BASE_URL,
    testUploadSecret: env.TEST_UPLOAD_SECRET,
    uploadUrlSeconds: env.UPLOAD_URL_SECONDS,
    sourceFetch: {
      maxBytes: env.SOURCE_FETCH_MAX_BYTES,
      deadlineMs: env.SOURCE_FETCH_DEADLINE_MS,
      perAccount: env.SOURCE_FETCHES_PER_ACCOUNT,
      allowPrivate: env.SOURCE_FETCH_ALLOW_PRIVATE,
      allowedIps: ipList(env.SOURCE_FETCH_ALLOWED_IPS),
      extraCaFile: env.SOURCE_FETCH_EXTRA_CA_FILE,
    },
    reconcile: { intervalMs: env.RECONCILE_INTERVAL_MS, minAgeMs: env.RECONCILE_MIN_AGE_MS },
    uploadWindowMs: toUploadWindowMs(env),
    inputLimits: { watermark: toInputLimit(env, 'WATERMARK'), aiDetection: toInputLimit(env, 'AI_DETECTION') },
  };
}

export const UPLOADS_CONFIG = Symbol('UPLOADS_CONFIG');
