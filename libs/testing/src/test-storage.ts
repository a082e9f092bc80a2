import { StorageConfig, StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { testInfra, uniqueName } from './test-infra';

/**
 * Storage configuration for an integration test against a local S3 server at `endpoint`: the same
 * validation as a service's environment, and buckets no other test uses.
 */
export function testStorageConfig(endpoint: string): StorageConfig {
  const suffix = uniqueName('b').replace('_', '-');
  const env = validateEnv(StorageEnv, {
    PORT: '1',
    DATABASE_URL: testInfra.databaseUrl,
    S3_ENDPOINT: endpoint,
    S3_BUCKET_INPUTS: `in-${suffix}`,
    S3_BUCKET_OUTPUTS: `out-${suffix}`,
    S3_BUCKET_REPORTS: `rep-${suffix}`,
  });
  return toStorageConfig(env);
}
