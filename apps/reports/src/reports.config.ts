import { CoreConfig, StorageConfig, StorageEnv, toCoreConfig, toStorageConfig, validateEnv } from '@cp/config';

export class ReportsEnv extends StorageEnv {
  override PORT: number = 3105;
}

export type ReportsConfig = CoreConfig & { storage: StorageConfig };

export function loadReportsConfig(source: NodeJS.ProcessEnv = process.env): ReportsConfig {
  const env = validateEnv(ReportsEnv, source);
  return { ...toCoreConfig(env), storage: toStorageConfig(env) };
}
