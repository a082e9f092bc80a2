import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';

export class RetentionEnv extends StorageEnv {
  override PORT: number = 3107;
}

export type RetentionConfig = CoreConfig & { storage: StorageConfig };

export function loadRetentionConfig(source: NodeJS.ProcessEnv = process.env): RetentionConfig {
  const env = validateEnv(RetentionEnv, source);
  return { ...toCoreConfig(env), storage: toStorageConfig(env) };
}
