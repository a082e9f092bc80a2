import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';

export class UploadsEnv extends StorageEnv {
  override PORT = 3102;
}

export type UploadsConfig = CoreConfig & { storage: StorageConfig };

export function loadUploadsConfig(source: NodeJS.ProcessEnv = process.env): UploadsConfig {
  const env = validateEnv(UploadsEnv, source);
  return { ...toCoreConfig(env), storage: toStorageConfig(env) };
}
