import { IsInt } from 'class-validator';
import { testOnlyOutboundVariables, toOutboundSettings, withOutboundEnv } from './outbound-env';
import { ConfigValidationError, validateEnv } from './validate-env';

class BaseEnv {
  @IsInt()
  PORT: number = 3000;
}

class FetcherEnv extends withOutboundEnv(BaseEnv, 'FETCH', { defaultMaxBytes: 4096, maxDeadlineMs: 600_000 }) {}

describe('withOutboundEnv', () => {
  it('has the defaults every outbound kind shares, with its own byte cap', () => {
    const env = validateEnv(FetcherEnv, {});
    expect(toOutboundSettings(env, 'FETCH')).toEqual({ maxBytes: 4096, deadlineMs: 120_000, allowPrivate: false, allowedIps: [], extraCaFile: undefined });
    expect(testOnlyOutboundVariables(env, 'FETCH')).toEqual([]);
  });

  it('reads numbers, the switch, the IP list and the CA file, and names the test-only values', () => {
    const env = validateEnv(FetcherEnv, { FETCH_MAX_BYTES: '2048', FETCH_DEADLINE_MS: '5000', FETCH_ALLOW_PRIVATE: 'true', FETCH_ALLOWED_IPS: '127.0.0.1, ::1', FETCH_EXTRA_CA_FILE: '/ca.pem' });
    expect(toOutboundSettings(env, 'FETCH')).toEqual({ maxBytes: 2048, deadlineMs: 5000, allowPrivate: true, allowedIps: ['127.0.0.1', '::1'], extraCaFile: '/ca.pem' });
    expect(testOnlyOutboundVariables(env, 'FETCH')).toEqual(['FETCH_ALLOW_PRIVATE', 'FETCH_ALLOWED_IPS']);
    expect(toOutboundSettings(validateEnv(FetcherEnv, { FETCH_ALLOW_PRIVATE: 'false' }), 'FETCH').allowPrivate).toBe(false);
  });

  it('names each variable out of bounds', () => {
    let refused: unknown = null;
    try {
      validateEnv(FetcherEnv, { FETCH_MAX_BYTES: '10', FETCH_DEADLINE_MS: '600001', FETCH_ALLOWED_IPS: 'localhost' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigValidationError);
    expect((refused as ConfigValidationError).variables.sort()).toEqual(['FETCH_ALLOWED_IPS', 'FETCH_DEADLINE_MS', 'FETCH_MAX_BYTES']);
  });
});
