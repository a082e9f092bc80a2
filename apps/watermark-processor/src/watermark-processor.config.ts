import { ConfigValidationError, CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';

const DEV_WATERMARK_SECRET = 'dev-only-watermark-secret';

export class WatermarkProcessorEnv extends StorageEnv {
  override PORT: number = 3103;

  /** Keys the watermark pattern and the payload check; changing it makes existing marks unreadable. */
  @IsString()
  @MinLength(16)
  WATERMARK_SECRET = DEV_WATERMARK_SECRET;

  @IsInt()
  @Min(1_000_000)
  @Max(1_000_000_000)
  WATERMARK_MAX_PIXELS: number = 100_000_000;

  @IsInt()
  @Min(1024)
  WATERMARK_MAX_INPUT_BYTES: number = 200 * 1024 * 1024;

  /** Jobs processed at once by one replica (image work is CPU-bound). */
  @IsInt()
  @Min(1)
  @Max(16)
  WATERMARK_CONCURRENCY: number = 1;

  @IsInt()
  @Min(1)
  @Max(20)
  WATERMARK_MAX_ATTEMPTS: number = 4;
}

export interface WatermarkProcessorConfig extends CoreConfig {
  storage: StorageConfig;
  watermark: { secret: string; maxPixels: number; maxInputBytes: number; concurrency: number; maxAttempts: number };
}

export function loadWatermarkProcessorConfig(source: NodeJS.ProcessEnv = process.env): WatermarkProcessorConfig {
  const env = validateEnv(WatermarkProcessorEnv, source);
  if (env.NODE_ENV === 'production' && env.WATERMARK_SECRET === DEV_WATERMARK_SECRET) {
    throw new ConfigValidationError(['WATERMARK_SECRET'], ['WATERMARK_SECRET: must be set in production']);
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    watermark: {
      secret: env.WATERMARK_SECRET,
      maxPixels: env.WATERMARK_MAX_PIXELS,
      maxInputBytes: env.WATERMARK_MAX_INPUT_BYTES,
      concurrency: env.WATERMARK_CONCURRENCY,
      maxAttempts: env.WATERMARK_MAX_ATTEMPTS,
    },
  };
}

export const PROCESSOR_CONFIG = Symbol('PROCESSOR_CONFIG');
