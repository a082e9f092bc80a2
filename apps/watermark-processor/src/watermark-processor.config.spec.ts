import { generateDevelopmentCredentials, SigningCredentials } from '@cp/anti-ai';
import { ConfigValidationError } from '@cp/config';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadWatermarkProcessorConfig, WatermarkProcessorEnv } from './watermark-processor.config';

describe('loadWatermarkProcessorConfig: anti-AI signing', () => {
  const base = { DATABASE_URL: 'postgres://localhost/x' };
  let first: SigningCredentials;
  let second: SigningCredentials;

  beforeAll(async () => {
    [first, second] = await Promise.all([generateDevelopmentCredentials(), generateDevelopmentCredentials()]);
  });

  const failureOf = (env: Record<string, string>): ConfigValidationError => {
    try {
      loadWatermarkProcessorConfig({ ...base, ...env });
    } catch (error) {
      if (error instanceof ConfigValidationError) {
        return error;
      }
      throw error;
    }
    throw new Error('expected the configuration to be refused');
  };

  it('reads the worker settings under WATERMARK_ (names and defaults of before the shared worker settings)', () => {
    expect(loadWatermarkProcessorConfig(base).watermark).toMatchObject({ maxPixels: 100_000_000, maxInputBytes: 200 * 1024 * 1024, concurrency: 1, maxAttempts: 4 });
    const env = { ...base, WATERMARK_MAX_PIXELS: '5000000', WATERMARK_MAX_INPUT_BYTES: '2048', WATERMARK_CONCURRENCY: '2', WATERMARK_MAX_ATTEMPTS: '6' };
    expect(loadWatermarkProcessorConfig(env).watermark).toMatchObject({ maxPixels: 5_000_000, maxInputBytes: 2048, concurrency: 2, maxAttempts: 6 });
  });

  it('development without a chain: a development chain is generated later', () => {
    expect(loadWatermarkProcessorConfig(base).antiAi.c2pa).toBeUndefined();
  });

  it('production refuses to start without the signing chain and with the private-target switch', () => {
    const error = failureOf({ NODE_ENV: 'production', WATERMARK_SECRET: 'a-real-production-secret', ANTI_AI_TARGET_ALLOW_PRIVATE: 'true' });
    expect(error.message).toContain('ANTI_AI_C2PA_CERT_CHAIN_PEM');
    expect(error.message).toContain('ANTI_AI_TARGET_ALLOW_PRIVATE');
  });

  it('production refuses an allow-list of private zero-copy target addresses', () => {
    const production = { NODE_ENV: 'production', WATERMARK_SECRET: 'a-real-production-secret', ANTI_AI_C2PA_CERT_CHAIN_PEM: first.certificateChainPem, ANTI_AI_C2PA_PRIVATE_KEY_PEM: first.privateKeyPem };
    expect(failureOf({ ...production, ANTI_AI_TARGET_ALLOWED_IPS: '127.0.0.1' }).message).toContain('ANTI_AI_TARGET_ALLOWED_IPS');
    expect(loadWatermarkProcessorConfig({ ...base, ...production }).antiAi.target.allowedIps).toEqual([]);
    expect(loadWatermarkProcessorConfig({ ...base, ANTI_AI_TARGET_ALLOWED_IPS: '127.0.0.1' }).antiAi.target.allowedIps).toEqual(['127.0.0.1']);
  });

  it('reads the zero-copy deadline and byte cap, and refuses a deadline under a second', () => {
    expect(loadWatermarkProcessorConfig(base).antiAi.target).toMatchObject({ deadlineMs: 120_000, maxBytes: 512 * 1024 * 1024 });
    expect(loadWatermarkProcessorConfig({ ...base, ANTI_AI_TARGET_DEADLINE_MS: '5000', ANTI_AI_TARGET_MAX_BYTES: '4096' }).antiAi.target).toMatchObject({ deadlineMs: 5000, maxBytes: 4096 });
    expect(failureOf({ ANTI_AI_TARGET_DEADLINE_MS: '10' }).message).toContain('ANTI_AI_TARGET_DEADLINE_MS');
  });

  it('refuses a key that does not belong to the chain', () => {
    const error = failureOf({ ANTI_AI_C2PA_CERT_CHAIN_PEM: first.certificateChainPem, ANTI_AI_C2PA_PRIVATE_KEY_PEM: second.privateKeyPem });
    expect(error.message).toContain('does not belong');
  });

  it('accepts a matching chain and key', () => {
    const config = loadWatermarkProcessorConfig({ ...base, ANTI_AI_C2PA_CERT_CHAIN_PEM: first.certificateChainPem, ANTI_AI_C2PA_PRIVATE_KEY_PEM: first.privateKeyPem });
    expect(config.antiAi.c2pa?.certificateChainPem).toBe(first.certificateChainPem);
  });
});

describeConfigurationDoc('watermark-processor', WatermarkProcessorEnv);
