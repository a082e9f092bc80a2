import { ConfigValidationError } from '@cp/config';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadGatewayConfig, GatewayEnv } from './gateway.config';

describe('gateway configuration: TEST_UPLOAD_SECRET', () => {
  const base = { DATABASE_URL: 'postgres://db/cp' };

  it('outside production, the development secret (the uploads service default) is used', () => {
    expect(loadGatewayConfig(base).testUploadSecret).toBe('dev-only-test-upload-secret');
    expect(loadGatewayConfig({ ...base, TEST_UPLOAD_SECRET: 'a-secret-of-the-operator' }).testUploadSecret).toBe('a-secret-of-the-operator');
  });

  it('production refuses to start with the development secret, and accepts its own', () => {
    expect(() => loadGatewayConfig({ ...base, NODE_ENV: 'production' })).toThrow(ConfigValidationError);
    expect(() => loadGatewayConfig({ ...base, NODE_ENV: 'production' })).toThrow(/TEST_UPLOAD_SECRET/);
    expect(loadGatewayConfig({ ...base, NODE_ENV: 'production', TEST_UPLOAD_SECRET: 'a-secret-of-the-operator' }).testUploadSecret).toBe('a-secret-of-the-operator');
  });

  it('refuses a secret shorter than 16 characters', () => {
    expect(() => loadGatewayConfig({ ...base, TEST_UPLOAD_SECRET: 'short' })).toThrow(/TEST_UPLOAD_SECRET/);
  });
});

describeConfigurationDoc('api-gateway', GatewayEnv);
