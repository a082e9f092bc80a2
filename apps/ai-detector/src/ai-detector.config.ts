import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';

export class AiDetectorEnv extends StorageEnv {
  override PORT: number = 3104;
}

export type AiDetectorConfig = CoreConfig & { storage: StorageConfig };

export function loadAiDetectorConfig(source: NodeJS.ProcessEnv = process.env): AiDetectorConfig {
  const env = validateEnv(AiDetectorEnv, source);
  return { ...toCoreConfig(env), storage: toStorageConfig(env) };
}
