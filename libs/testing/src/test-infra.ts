import { randomBytes } from 'node:crypto';

/**
 * Where integration tests find the real infrastructure: `npm test` exports these (a private NATS server
 * and fresh databases); run alone, the tests fall back to the machine's services.
 */
export const testInfra = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cp_test',
  natsUrl: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
  /** A three-node JetStream cluster (comma-separated client URLs), started by tools/stack/test-infra.ts. */
  natsClusterUrl: process.env.TEST_NATS_CLUSTER_URL ?? '',
};

/** A schema or stream name no other test uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}
