import { ConfigValidationError, CoreConfig, CoreEnv, IsHttpOrigin, toCoreConfig, validateEnv } from '@cp/config';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';

/** The uploads service's development default: both sides verify the same tokens. */
const DEV_TEST_UPLOAD_SECRET = 'dev-only-test-upload-secret';

export class GatewayEnv extends CoreEnv {
  override PORT: number = 3000;

  /** Base address clients use (test upload URLs are built from it). */
  @IsHttpOrigin()
  PUBLIC_BASE_URL: string = 'http://127.0.0.1:3000';

  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 1024 * 1024;

  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 15_000;

  /** Storage the results route relays from (the same values as the other services'; no credentials needed). */
  @IsHttpOrigin()
  S3_ENDPOINT: string = 'http://127.0.0.1:9000';

  /** The host presigned URLs are signed for (the signature covers it). */
  @IsHttpOrigin()
  S3_PUBLIC_ENDPOINT: string = 'http://127.0.0.1:9000';

  @IsString()
  S3_BUCKET_OUTPUTS: string = 'cp-outputs';

  /**
   * Result downloads relayed at once by one replica (each holds an upstream storage connection for up to 15
   * minutes); beyond, 503 WATERMARK_V2_UNAVAILABLE with Retry-After.
   */
  @IsInt()
  @Min(1)
  @Max(100_000)
  RESULTS_RELAY_MAX_CONCURRENT: number = 256;

  /** Downloads of one result file relayed at once by one replica; beyond, 429 RATE_LIMIT_EXCEEDED with Retry-After. */
  @IsInt()
  @Min(1)
  @Max(1000)
  RESULTS_RELAY_MAX_PER_OBJECT: number = 4;

  /**
   * The uploads service's secret of test-key upload tokens: the test-upload sink checks a token before it
   * reads any of the body. Required in production (the same value as the uploads service's).
   */
  @IsString()
  @MinLength(16)
  TEST_UPLOAD_SECRET: string = DEV_TEST_UPLOAD_SECRET;
}

export interface GatewayConfig extends CoreConfig {
  publicBaseUrl: string;
  bodyLimitBytes: number;
  rpcTimeoutMs: number;
  testUploadSecret: string;
  /** Where `GET /api/v2/results/…` relays presigned reads of result files to. */
  results: { storageEndpoint: string; signedHost: string; bucket: string; maxConcurrent: number; maxPerObject: number };
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const validated = validateEnv(GatewayEnv, env);
  if (validated.NODE_ENV === 'production' && validated.TEST_UPLOAD_SECRET === DEV_TEST_UPLOAD_SECRET) {
    throw new ConfigValidationError(['TEST_UPLOAD_SECRET'], ['TEST_UPLOAD_SECRET: must be set to a production value']);
  }
  return {
    ...toCoreConfig(validated),
    publicBaseUrl: validated.PUBLIC_BASE_URL,
    bodyLimitBytes: validated.BODY_LIMIT_BYTES,
    rpcTimeoutMs: validated.RPC_TIMEOUT_MS,
    testUploadSecret: validated.TEST_UPLOAD_SECRET,
    results: {
      storageEndpoint: validated.S3_ENDPOINT,
      signedHost: new URL(validated.S3_PUBLIC_ENDPOINT).host,
      bucket: validated.S3_BUCKET_OUTPUTS,
      maxConcurrent: validated.RESULTS_RELAY_MAX_CONCURRENT,
      maxPerObject: validated.RESULTS_RELAY_MAX_PER_OBJECT,
    },
  };
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
