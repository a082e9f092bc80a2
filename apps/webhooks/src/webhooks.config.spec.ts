import 'reflect-metadata';
import { ConfigValidationError } from '@cp/config';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadWebhooksConfig, WebhooksEnv } from './webhooks.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };
const key = Buffer.alloc(32, 7).toString('base64');

describe('webhooks configuration', () => {
  it('has development defaults', () => {
    const config = loadWebhooksConfig(base);
    expect(config.http.port).toBe(3106);
    expect(config.webhooks).toMatchObject({ allowHttp: false, allowedTargetIps: [], maxConcurrencyPerEndpoint: 4, maxConcurrencyPerAccount: 8, maxWebhooksPerMode: 20 });
    expect(config.webhooks.secretEncryptionKey).toHaveLength(32);
    expect(config.mail.smtpUrl).toBeUndefined();
  });

  it('reads the switches and the allow-list', () => {
    const config = loadWebhooksConfig({
      ...base,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1, ::1',
      WEBHOOK_SECRET_ENCRYPTION_KEY: key,
      WEBHOOK_MAX_CONCURRENCY: '8',
      WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: '2',
      WEBHOOK_MAX_CONCURRENCY_PER_ACCOUNT: '6',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
    });
    expect(config.webhooks).toMatchObject({ maxConcurrency: 8, maxConcurrencyPerEndpoint: 2, maxConcurrencyPerAccount: 6, dispatchIntervalMs: 100 });
    expect(config.webhooks.allowHttp).toBe(true);
    expect(config.webhooks.allowedTargetIps).toEqual(['127.0.0.1', '::1']);
    expect(config.webhooks.secretEncryptionKey.equals(Buffer.alloc(32, 7))).toBe(true);
  });

  it('production requires its own key and SMTP, and refuses plain HTTP', () => {
    const attempt = (env: Record<string, string>) => () => loadWebhooksConfig({ ...base, NODE_ENV: 'production', ...env });
    expect(attempt({ SMTP_URL: 'smtp://mail:25' })).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
    expect(attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: key })).toThrow(/SMTP_URL/);
    expect(attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: key, SMTP_URL: 'smtp://mail:25', WEBHOOK_ALLOW_HTTP: 'true' })).toThrow(/WEBHOOK_ALLOW_HTTP/);
    expect(attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: key, SMTP_URL: 'smtp://mail:25' })()).toMatchObject({ env: 'production' });
  });

  it('production refuses an allow-list of private target addresses', () => {
    const production = { ...base, NODE_ENV: 'production', WEBHOOK_SECRET_ENCRYPTION_KEY: key, SMTP_URL: 'smtp://mail:25' };
    expect(() => loadWebhooksConfig({ ...production, WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1' })).toThrow(/WEBHOOK_ALLOWED_TARGET_IPS/);
    expect(loadWebhooksConfig({ ...production, WEBHOOK_ALLOWED_TARGET_IPS: ' ' }).webhooks.allowedTargetIps).toEqual([]);
    expect(loadWebhooksConfig({ ...base, WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1' }).webhooks.allowedTargetIps).toEqual(['127.0.0.1']);
  });

  it('names a malformed key or allow-list without echoing it', () => {
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_SECRET_ENCRYPTION_KEY: 'short' })).toThrow(ConfigValidationError);
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_ALLOWED_TARGET_IPS: 'intranet.local' })).toThrow(/WEBHOOK_ALLOWED_TARGET_IPS/);
  });

  it('reads the ceiling of webhooks per account and mode, and refuses one outside 1–1000', () => {
    expect(loadWebhooksConfig({ ...base, WEBHOOK_MAX_PER_ACCOUNT_MODE: '5' }).webhooks.maxWebhooksPerMode).toBe(5);
    for (const value of ['0', '1001', 'many', '2.5']) {
      expect(() => loadWebhooksConfig({ ...base, WEBHOOK_MAX_PER_ACCOUNT_MODE: value })).toThrow(/WEBHOOK_MAX_PER_ACCOUNT_MODE/);
    }
  });

  it('keeps ended deliveries 30 days by default; never less than 8 (beyond the 7-day range of a bulk retry)', () => {
    expect(loadWebhooksConfig(base).webhooks.deliveryRetention).toEqual({ keepMs: 30 * 24 * 3600_000, intervalMs: 600_000, batchSize: 1000 });
    const set = loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '8', WEBHOOK_DELIVERY_PRUNE_INTERVAL_MS: '60000', WEBHOOK_DELIVERY_PRUNE_BATCH_SIZE: '50' });
    expect(set.webhooks.deliveryRetention).toEqual({ keepMs: 8 * 24 * 3600_000, intervalMs: 60_000, batchSize: 50 });
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '7' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_PRUNE_BATCH_SIZE: '0' })).toThrow(/WEBHOOK_DELIVERY_PRUNE_BATCH_SIZE/);
  });
});

describe('webhooks config: SMTP_URL', () => {
  it('takes an smtp(s) URL, with transport options in its query', () => {
    expect(loadWebhooksConfig({ ...base, SMTP_URL: 'smtps://user:pass@mail.example:465?pool=true' }).mail.smtpUrl).toBe('smtps://user:pass@mail.example:465?pool=true');
  });

  // Each matched the old pattern (^smtps?://.+) and then made the mailer's constructor throw 'Invalid URL' at start,
  // a failure that named neither the variable nor the step.
  it.each(['smtp://mail:port', 'smtp://mail:99999', 'smtps://[mail'])('refuses %s at start, naming SMTP_URL and not echoing the secret', (url) => {
    expect(() => loadWebhooksConfig({ ...base, SMTP_URL: url })).toThrow(/SMTP_URL/);
    expect(() => loadWebhooksConfig({ ...base, SMTP_URL: url })).not.toThrow(url);
  });
});

describeConfigurationDoc('webhooks', WebhooksEnv);
