import { IsInt, Min } from 'class-validator';
import { CoreEnv, StorageEnv, toCoreConfig } from './core-env';
import { ConfigValidationError, validateEnv } from './validate-env';

class SampleEnv extends CoreEnv {
  @IsInt()
  @Min(500)
  SWEEP_INTERVAL_MS: number = 30_000;
}

const base = { PORT: '3000', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

describe('validateEnv', () => {
  it('converts numbers and booleans from their string form and keeps defaults', () => {
    const env = validateEnv(SampleEnv, { ...base, SWEEP_INTERVAL_MS: '2000' });
    expect(env.PORT).toBe(3000);
    expect(env.SWEEP_INTERVAL_MS).toBe(2000);
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
    const storage = validateEnv(StorageEnv, { ...base, S3_CREATE_BUCKETS: 'false' });
    expect(storage.S3_CREATE_BUCKETS).toBe(false);
    expect(toCoreConfig(validateEnv(CoreEnv, base)).database.preparedStatements).toBe(true);
    expect(toCoreConfig(validateEnv(CoreEnv, { ...base, DATABASE_PREPARED_STATEMENTS: 'false' })).database.preparedStatements).toBe(false);
  });

  it('reads true/false, 1/0 and yes/no in any case as booleans and refuses any other word, naming the variable', () => {
    for (const [raw, value] of [['TRUE', true], ['1', true], [' yes ', true], ['False', false], ['0', false], ['no', false]] as const) {
      expect(validateEnv(StorageEnv, { ...base, S3_CREATE_BUCKETS: raw }).S3_CREATE_BUCKETS).toBe(value);
    }
    for (const typo of ['ture', 'on', 'off', 'flase']) {
      expect(() => validateEnv(StorageEnv, { ...base, S3_CREATE_BUCKETS: typo })).toThrow(/S3_CREATE_BUCKETS/);
    }
  });

  it('takes a blank value as unset: its default, never 0', () => {
    const env = validateEnv(CoreEnv, { ...base, METRICS_PORT: ' ', DATABASE_STATEMENT_TIMEOUT_MS: '  ' });
    expect(env.METRICS_PORT).toBe(9464);
    expect(env.DATABASE_STATEMENT_TIMEOUT_MS).toBe(30_000);
  });

  it('gives the database timeouts their defaults, reads them, and refuses invalid ones', () => {
    expect(toCoreConfig(validateEnv(CoreEnv, base)).database).toMatchObject({ statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000, connectionTimeoutMs: 5000 });
    const set = { DATABASE_STATEMENT_TIMEOUT_MS: '1500', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0', DATABASE_CONNECTION_TIMEOUT_MS: '250' };
    expect(toCoreConfig(validateEnv(CoreEnv, { ...base, ...set })).database).toMatchObject({ statementTimeoutMs: 1500, idleInTransactionTimeoutMs: 0, connectionTimeoutMs: 250 });
    expect(() => validateEnv(CoreEnv, { ...base, DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    expect(() => validateEnv(CoreEnv, { ...base, DATABASE_CONNECTION_TIMEOUT_MS: '0' })).toThrow(/DATABASE_CONNECTION_TIMEOUT_MS/);
  });

  it('names every missing or invalid variable, without echoing values', () => {
    let caught: unknown;
    try {
      validateEnv(SampleEnv, { PORT: 'http', DATABASE_URL: 'mysql://secret-password@db', SWEEP_INTERVAL_MS: '10' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigValidationError);
    const error = caught as ConfigValidationError;
    expect(error.variables.sort()).toEqual(['DATABASE_URL', 'PORT', 'SWEEP_INTERVAL_MS']);
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).not.toContain('secret-password');
  });

  it('reports a required variable that is absent', () => {
    expect(() => validateEnv(CoreEnv, { PORT: '1' })).toThrow(/DATABASE_URL/);
  });

  it('takes NATS_URL as one URL or a comma-separated list, and NATS_STREAM_REPLICAS from 1 to 5 (default 1)', () => {
    expect(toCoreConfig(validateEnv(CoreEnv, base)).nats).toEqual({ url: 'nats://127.0.0.1:4222', streamReplicas: 1, streamMaxBytes: 1024 * 1024 * 1024 });
    const cluster = 'nats://nats-0.nats:4222, nats://nats-1.nats:4222,nats://nats-2.nats:4222';
    expect(toCoreConfig(validateEnv(CoreEnv, { ...base, NATS_URL: cluster, NATS_STREAM_REPLICAS: '3' })).nats).toMatchObject({ url: cluster, streamReplicas: 3 });
    expect(() => validateEnv(CoreEnv, { ...base, NATS_URL: 'nats://a:4222,http://b:4222' })).toThrow(/NATS_URL/);
    expect(() => validateEnv(CoreEnv, { ...base, NATS_URL: 'nats://a:4222,' })).toThrow(/NATS_URL/);
    expect(() => validateEnv(CoreEnv, { ...base, NATS_STREAM_REPLICAS: '0' })).toThrow(/NATS_STREAM_REPLICAS/);
    expect(() => validateEnv(CoreEnv, { ...base, NATS_STREAM_REPLICAS: '6' })).toThrow(/NATS_STREAM_REPLICAS/);
  });

  it('bounds the streams by NATS_STREAM_MAX_MIB (default 1 GiB, at least 16 MiB)', () => {
    expect(toCoreConfig(validateEnv(CoreEnv, { ...base, NATS_STREAM_MAX_MIB: '64' })).nats.streamMaxBytes).toBe(64 * 1024 * 1024);
    expect(() => validateEnv(CoreEnv, { ...base, NATS_STREAM_MAX_MIB: '8' })).toThrow(/NATS_STREAM_MAX_MIB/);
    expect(() => validateEnv(CoreEnv, { ...base, NATS_STREAM_MAX_MIB: 'lots' })).toThrow(/NATS_STREAM_MAX_MIB/);
  });

  it('refuses the test clock in production', () => {
    const env = validateEnv(CoreEnv, { ...base, NODE_ENV: 'production', CLOCK_OFFSET_FILE: '/tmp/offset' });
    expect(() => toCoreConfig(env)).toThrow(/CLOCK_OFFSET_FILE/);
    expect(toCoreConfig(validateEnv(CoreEnv, { ...base, CLOCK_OFFSET_FILE: '/tmp/offset' })).clock.offsetFile).toBe('/tmp/offset');
  });
});

describe('http(s) origins (S3_ENDPOINT, S3_PUBLIC_ENDPOINT, PUBLIC_BASE_URL)', () => {
  it.each(['http://127.0.0.1:9000', 'https://files.example.invalid', 'http://minio.storage:9000', 'http://[::1]:9000'])('accepts %s', (origin) => {
    expect(validateEnv(StorageEnv, { ...base, S3_ENDPOINT: origin }).S3_ENDPOINT).toBe(origin);
  });

  // Each passed the old pattern (`^https?://[^/]+$`) and then threw `Invalid URL` where it was parsed: the gateway's
  // config loader at start (S3_PUBLIC_ENDPOINT, an unhandled rejection that left the process without a server), its
  // results relay on every download (S3_ENDPOINT), or a client's URL.
  it.each(['http://files:port', 'http://files:99999', 'http://user:secret@files', 'http://files?x=1', 'http://files#top', 'http://fi les', 'ftp://files', 'http://files/'])(
    'refuses %s at start, naming the variable and not the value',
    (origin) => {
      let error: unknown;
      try {
        validateEnv(StorageEnv, { ...base, S3_PUBLIC_ENDPOINT: origin });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect((error as ConfigValidationError).variables).toEqual(['S3_PUBLIC_ENDPOINT']);
      expect((error as ConfigValidationError).message).not.toContain(origin);
    },
  );
});
