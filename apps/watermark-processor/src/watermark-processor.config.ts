import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';

export class WatermarkProcessorEnv extends StorageEnv {
  override PORT = 3103;
}

export type WatermarkProcessorConfig = CoreConfig & { storage: StorageConfig };

export function loadWatermarkProcessorConfig(source: NodeJS.ProcessEnv = process.env): WatermarkProcessorConfig {
  const env = validateEnv(WatermarkProcessorEnv, source);
  return { ...toCoreConfig(env), storage: toStorageConfig(env) };
}
