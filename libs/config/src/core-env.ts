import { ConfigValidationError } from './validate-env';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, registerDecorator } from 'class-validator';

/**
 * Whether a value is an http(s) origin without a path, query, fragment or credentials, that a URL parser reads
 * (a port from 1 to 65535): `http://files:port` matched a pattern alone and then threw `Invalid URL` wherever it was
 * parsed, at start in the gateway's loader or on every download in its relay.
 */
export function isHttpOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || !/^https?:\/\/[^/?#\s]+$/.test(value)) {
    return false;
  }
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** An http(s) origin without a path, e.g. `https://api.example.com` (base URLs and storage endpoints). */
export function IsHttpOrigin(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isHttpOrigin',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must be an http(s) origin without a path (a port from 1 to 65535, no query or credentials)' },
      validator: { validate: isHttpOrigin },
    });
}

const TRUE_WORDS: readonly string[] = ['1', 'true', 'yes'];
const FALSE_WORDS: readonly string[] = ['0', 'false', 'no'];

/**
 * Reads the raw string: implicit conversion would already have made "false" truthy. Anything but true/false, 1/0 or
 * yes/no (any case) is left as it is, so `@IsBoolean()` refuses it naming the variable: a typo (`ture`, `on`) used
 * to read as false without a word.
 */
export const toBoolean = ({ key, obj }: { key: string; obj: Record<string, unknown> }): unknown => {
  const raw = obj[key];
  if (typeof raw !== 'string') {
    return raw;
  }
  const word = raw.trim().toLowerCase();
  return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : raw;
};

/** `NATS_STREAM_MAX_MIB` when unset (also read by the local S3 bridge, which sets the streams up too). */
export const DEFAULT_NATS_STREAM_MAX_MIB = 1024;

/** Variables every service reads. */
export class CoreEnv {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsInt()
  @Min(1)
  @Max(65535)
  PORT!: number;

  /** Interface the HTTP server binds to. */
  @IsString()
  HOST: string = '0.0.0.0';

  /**
   * Port of the internal metrics server (Prometheus `GET /metrics`), apart from the public port so that
   * metrics are never served to API clients. 0 turns it off.
   */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  /** Interface the metrics server binds to. */
  @IsString()
  METRICS_HOST: string = '0.0.0.0';

  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// connection URL' })
  DATABASE_URL!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE: number = 10;

  /** Repeated statements as named prepared statements; false behind a pooler that cannot keep them (PgBouncer in transaction mode before 1.21). */
  @Transform(toBoolean)
  @IsBoolean()
  DATABASE_PREPARED_STATEMENTS: boolean = true;

  /** PostgreSQL cancels a statement running longer (statement_timeout of every pooled connection); 0: the server's setting. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS: number = 30_000;

  /** PostgreSQL ends a session idle inside a transaction this long, releasing its locks (idle_in_transaction_session_timeout); 0: the server's setting. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number = 60_000;

  /** Longest wait for a pooled connection; past it the request answers 503 with Retry-After. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_CONNECTION_TIMEOUT_MS: number = 5000;

  /**
   * The NATS server, or every node of a cluster as a comma-separated list: with the whole list a service still
   * connects, and reconnects, while any one node is down.
   */
  @Matches(/^nats:\/\/[^,\s]+(\s*,\s*nats:\/\/[^,\s]+)*$/, { message: 'must be a nats:// URL or a comma-separated list of them' })
  NATS_URL: string = 'nats://127.0.0.1:4222';

  /**
   * Copies JetStream keeps of each stream (and, inheriting it, of each consumer): 1 on a single server, 3 on a
   * three-node cluster so that a node and its volume can be lost. Checked at start against the cluster's size.
   */
  @IsInt()
  @Min(1)
  @Max(5)
  NATS_STREAM_REPLICAS: number = 1;

  /**
   * Size bound of the EVENTS and of the JOBS stream, in MiB; STORAGE_EVENTS gets a quarter of it and PARKED half
   * (`sizeShare` in `libs/contracts/src/subjects.ts`). JetStream reserves them on its file store: each node holding
   * a copy needs 2.75 × this much JetStream storage free (2.75 GiB at the default). A full stream drops its
   * oldest messages, except JOBS, which refuses new ones (the outboxes keep them and repeat).
   */
  @IsInt()
  @Min(16)
  @Max(1_048_576)
  NATS_STREAM_MAX_MIB: number = DEFAULT_NATS_STREAM_MAX_MIB;

  @IsIn(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
  LOG_LEVEL: string = 'info';

  /** Test-only: a file holding a clock offset in ms, shared by all processes of an e2e run. */
  @IsOptional()
  @IsString()
  CLOCK_OFFSET_FILE?: string;

  /**
   * The outbox relay's safety-net poll. Events leave on commit (in-process signal, LISTEN/NOTIFY across
   * replicas, issue 32); the poll only bounds the delay of a notification missed while the listening connection
   * was down, or of a pass that failed (broker unreachable). Seconds, not the 250 ms every hop used to wait.
   */
  @IsInt()
  @Min(50)
  @Max(600_000)
  OUTBOX_POLL_INTERVAL_MS: number = 2000;

  /**
   * How long a stopping process waits for the jobs and events it is handling (from the preStop drain through
   * SIGTERM) before it gives them back to the broker for another replica and finishes its shutdown. Keep it below
   * the pod's grace period minus the preStop pause and the rest of the shutdown (the chart derives it so).
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  DRAIN_TIMEOUT_SECONDS: number = 300;
}

/** Variables of services that use object storage. */
export class StorageEnv extends CoreEnv {
  /** Endpoint the services use, e.g. http://minio.storage:9000 */
  @IsHttpOrigin()
  S3_ENDPOINT: string = 'http://127.0.0.1:9000';

  /** Endpoint presigned URLs are made for: what an external client can reach. */
  @IsHttpOrigin()
  S3_PUBLIC_ENDPOINT: string = 'http://127.0.0.1:9000';

  @IsString()
  S3_ACCESS_KEY: string = 'S3RVER';

  @IsString()
  S3_SECRET_KEY: string = 'S3RVER';

  @IsString()
  S3_REGION: string = 'us-east-1';

  @IsString()
  S3_BUCKET_INPUTS: string = 'cp-inputs';

  @IsString()
  S3_BUCKET_OUTPUTS: string = 'cp-outputs';

  @IsString()
  S3_BUCKET_REPORTS: string = 'cp-reports';

  @Transform(toBoolean)
  @IsBoolean()
  S3_CREATE_BUCKETS: boolean = true;

  /**
   * A storage request whose connection stays silent this long (no byte sent or received) fails with ETIMEDOUT,
   * which the consumers treat as an outage (held and retried): without it a frozen storage server holds a job,
   * a download or a ZIP for as long as the TCP connection lives. Idle time, not a whole-request deadline, so a
   * large upload that keeps moving is never cut.
   */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  S3_IDLE_TIMEOUT_MS: number = 30_000;
}

export interface CoreConfig {
  env: CoreEnv['NODE_ENV'];
  http: { host: string; port: number };
  /** The internal metrics server; port 0: none. */
  metrics: { host: string; port: number };
  database: {
    url: string;
    poolSize: number;
    preparedStatements: boolean;
    statementTimeoutMs: number;
    idleInTransactionTimeoutMs: number;
    connectionTimeoutMs: number;
  };
  /** `url`: one server or a comma-separated list (split by the messaging library's connections). */
  nats: { url: string; streamReplicas: number; streamMaxBytes: number };
  log: { level: string };
  clock: { offsetFile: string | undefined };
  outbox: { pollIntervalMs: number };
  /** From the first stop (preStop drain or SIGTERM) until the messages still being handled are given back. */
  drain: { timeoutMs: number };
}

export function toCoreConfig(env: CoreEnv): CoreConfig {
  if (env.NODE_ENV === 'production' && env.CLOCK_OFFSET_FILE) {
    throw new ConfigValidationError(['CLOCK_OFFSET_FILE'], ['CLOCK_OFFSET_FILE: is not allowed in production']);
  }
  return {
    env: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT },
    metrics: { host: env.METRICS_HOST, port: env.METRICS_PORT },
    database: {
      url: env.DATABASE_URL,
      poolSize: env.DATABASE_POOL_SIZE,
      preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      connectionTimeoutMs: env.DATABASE_CONNECTION_TIMEOUT_MS,
    },
    nats: { url: env.NATS_URL, streamReplicas: env.NATS_STREAM_REPLICAS, streamMaxBytes: env.NATS_STREAM_MAX_MIB * 1024 * 1024 },
    log: { level: env.LOG_LEVEL },
    clock: { offsetFile: env.CLOCK_OFFSET_FILE },
    outbox: { pollIntervalMs: env.OUTBOX_POLL_INTERVAL_MS },
    drain: { timeoutMs: env.DRAIN_TIMEOUT_SECONDS * 1000 },
  };
}

export interface StorageConfig {
  endpoint: string;
  publicEndpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
  buckets: { inputs: string; outputs: string; reports: string };
  createBuckets: boolean;
  idleTimeoutMs: number;
}

export function toStorageConfig(env: StorageEnv): StorageConfig {
  return {
    endpoint: env.S3_ENDPOINT,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT,
    accessKey: env.S3_ACCESS_KEY,
    secretKey: env.S3_SECRET_KEY,
    region: env.S3_REGION,
    buckets: { inputs: env.S3_BUCKET_INPUTS, outputs: env.S3_BUCKET_OUTPUTS, reports: env.S3_BUCKET_REPORTS },
    createBuckets: env.S3_CREATE_BUCKETS,
    idleTimeoutMs: env.S3_IDLE_TIMEOUT_MS,
  };
}
