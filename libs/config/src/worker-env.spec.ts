import { IsInt } from 'class-validator';
import { ConfigValidationError, validateEnv } from './validate-env';
import { toInputLimit, toWorkerSettings, withInputLimitEnv, withWorkerEnv } from './worker-env';

class BaseEnv {
  @IsInt()
  PORT: number = 3000;
}

class ServiceEnv extends withWorkerEnv(BaseEnv, 'SCANNER') {
  override PORT: number = 3999;
}

describe('withWorkerEnv', () => {
  it('gives every worker the same defaults under its own prefix, beside the base class variables', () => {
    const env = validateEnv(ServiceEnv, {});
    expect(env.PORT).toBe(3999);
    expect(toWorkerSettings(env, 'SCANNER')).toEqual({ maxPixels: 100_000_000, maxInputBytes: 200 * 1024 * 1024, concurrency: 1, maxAttempts: 4 });
  });

  it('reads the variables as numbers', () => {
    const env = validateEnv(ServiceEnv, { SCANNER_MAX_PIXELS: '2000000', SCANNER_MAX_INPUT_BYTES: '4096', SCANNER_CONCURRENCY: '3', SCANNER_MAX_ATTEMPTS: '7' });
    expect(toWorkerSettings(env, 'SCANNER')).toEqual({ maxPixels: 2_000_000, maxInputBytes: 4096, concurrency: 3, maxAttempts: 7 });
  });

  it('names each variable out of bounds', () => {
    const refused = (() => {
      try {
        validateEnv(ServiceEnv, { SCANNER_MAX_PIXELS: '10', SCANNER_MAX_INPUT_BYTES: '100', SCANNER_CONCURRENCY: '17', SCANNER_MAX_ATTEMPTS: 'many' });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(ConfigValidationError);
    expect((refused as ConfigValidationError).variables.sort()).toEqual(['SCANNER_CONCURRENCY', 'SCANNER_MAX_ATTEMPTS', 'SCANNER_MAX_INPUT_BYTES', 'SCANNER_MAX_PIXELS']);
  });
});

class LimitsEnv extends withInputLimitEnv(withInputLimitEnv(BaseEnv, 'SCANNER'), 'READER') {}

describe('withInputLimitEnv', () => {
  it('reads a worker\'s input limit with the worker\'s default, for a service that refuses inputs before the worker', () => {
    const env = validateEnv(LimitsEnv, { READER_MAX_INPUT_BYTES: '4096' });
    expect(toInputLimit(env, 'SCANNER')).toBe(toWorkerSettings(validateEnv(ServiceEnv, {}), 'SCANNER').maxInputBytes);
    expect(toInputLimit(env, 'READER')).toBe(4096);
  });

  it('has the worker\'s bound', () => {
    expect(() => validateEnv(LimitsEnv, { SCANNER_MAX_INPUT_BYTES: '100' })).toThrow(ConfigValidationError);
  });
});
