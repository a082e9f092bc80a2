// What the webhooks service's tests share: a complete settings object and the service's schema on a test database.
import { openServiceDatabase } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra } from '@cp/testing';
import { WEBHOOKS_ENTITIES } from '../database/entities';
import { WEBHOOKS_MIGRATIONS } from '../database/migrations';
import { WebhooksSettings } from '../webhooks.config';

/** The service's settings as a test starts from them (HTTPS only, no private targets, 3 webhooks per mode). */
export function webhooksTestSettings(overrides: Partial<WebhooksSettings> = {}): WebhooksSettings {
  return {
    secretEncryptionKey: Buffer.alloc(32, 1),
    allowHttp: false,
    allowedTargetIps: [],
    dispatchIntervalMs: 1000,
    maxConcurrency: 4,
    maxConcurrencyPerEndpoint: 4,
    maxConcurrencyPerAccount: 8,
    maxWebhooksPerMode: 3,
    publicBaseUrl: 'https://api.example.com',
    deliveryRetention: { keepMs: 30 * 24 * 3600_000, intervalMs: 600_000, batchSize: 1000 },
    ...overrides,
  };
}

/** A schema of the test database with the webhooks service's migrations run, as the service opens its own. */
export function openWebhooksTestDatabase(schema: string, applicationName: string): ReturnType<typeof openServiceDatabase> {
  return openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...WEBHOOKS_ENTITIES, ...MESSAGING_ENTITIES], migrations: WEBHOOKS_MIGRATIONS, applicationName });
}
