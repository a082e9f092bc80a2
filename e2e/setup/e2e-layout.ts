import { tmpdir } from 'node:os';
import path from 'node:path';
// Jest loads global setup and teardown outside its module mapping, so the stack is imported by path here.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ROOT, SERVICE_NAMES, ServiceName, StackLayout } from '../../tools/stack/stack';

/** Certificate of the HTTPS S3 server that stands for a client's bucket (anti-AI zero-copy); made by the global setup. */
export function clientTlsDir(name = process.env.E2E_NAME ?? 'e2e'): string {
  return path.join(ROOT, 'tmp', name, 'client-tls');
}

/**
 * Where the e2e stack's services send their spans (issue 33): an OTLP/HTTP receiver that the tracing spec starts
 * (e2e/support/otlp-receiver.ts). While none listens, the exporters' batches fail on a closed loopback port and
 * are dropped: a few small attempts a second at most. E2E_TRACING=0 switches tracing off for a run.
 */
export function otlpReceiverPort(base = Number(process.env.E2E_PORT_BASE ?? 4000)): number {
  return base + 940;
}

function tracingEnv(base: number): Record<string, string> {
  if (process.env.E2E_TRACING === '0') {
    return {};
  }
  // Short batches so a test sees an order's spans within a second; JSON over HTTP (the exporter's default).
  // A queue that holds every span of a suite: while no receiver listens, a failed export takes up to its timeout,
  // and a default queue (2,048) filled by earlier specs (the API fuzzing) dropped the gateway's root span of the
  // tracing spec's orders. Large batches drain the backlog quickly once the receiver is up.
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpReceiverPort(base)}`,
    OTEL_BSP_SCHEDULE_DELAY: '300',
    OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
    OTEL_BSP_MAX_QUEUE_SIZE: '100000',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4096',
  };
}

/**
 * The e2e stack: its own database, the test run's NATS, ports apart from `npm start`'s, two gateway
 * replicas. E2E_NAME and E2E_PORT_BASE let several stacks run side by side on one machine.
 */
export function e2eLayout(): StackLayout {
  const name = process.env.E2E_NAME ?? 'e2e';
  // The test run's three-node JetStream cluster when test-infra started one (streams at three copies, as in
  // production; the chaos suite kills its nodes). E2E_NATS_CLUSTER_URL names another cluster: npm test's
  // fault-injection run takes test-infra's second one.
  const natsCluster = process.env.E2E_NATS_CLUSTER_URL || process.env.TEST_NATS_CLUSTER_URL;
  const base = Number(process.env.E2E_PORT_BASE ?? 4000);
  // The stack's own PostgreSQL cluster, so that the fault-injection suite may kill it (under the system temp
  // folder, which the postgres user can reach when the tests run as root). E2E_PRIVATE_PG=0: the machine's server.
  const privatePostgres = process.env.E2E_PRIVATE_PG !== '0' ? { port: base + 950, dataDir: path.join(tmpdir(), `cp-${name}-postgres`, 'data') } : undefined;
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [base + 100 + index]])) as Record<ServiceName, number[]>;
  ports['api-gateway'] = [base, base + 10];
  return {
    name,
    adminDatabaseUrl: privatePostgres
      ? `postgres://postgres@127.0.0.1:${privatePostgres.port}/postgres`
      : (process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
    ...(privatePostgres ? { privatePostgres } : {}),
    database: process.env.E2E_DATABASE ?? `cp_${name.replace(/[^a-z0-9_]/g, '_')}`,
    // else the single server
    natsUrl: natsCluster || (process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222'),
    s3Port: base + 900,
    ports,
    logLevel: 'info',
    clockOffsetFile: path.join(ROOT, 'tmp', name, 'clock-offset-ms'),
    // Webhooks: the test receivers listen on plain HTTP on loopback; failure e-mails land in files.
    extraEnv: {
      NATS_STREAM_REPLICAS: natsCluster ? '3' : '1',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1,::1',
      MAIL_OUTBOX_DIR: path.join(ROOT, 'tmp', name, 'mail'),
      // Orders and uploads sweep often, so tests with a moved clock do not wait a minute.
      UPLOAD_WINDOW_SWEEP_INTERVAL_MS: '1000',
      STUCK_ORDER_SWEEP_INTERVAL_MS: '1000',
      RECONCILE_INTERVAL_MS: '2000',
      // Tests read marks back with the same key the processor embeds with.
      WATERMARK_SECRET: 'e2e-watermark-secret-0001',
      // Reports: file-name markers force failures and slow attempts (refused in production); a killed worker's
      // job comes back after 5 s instead of a minute.
      REPORTS_FAULT_INJECTION: 'true',
      REPORTS_FAULT_SLOW_MS: '6000',
      REPORTS_JOB_ACK_WAIT_MS: '5000',
      // Anti-AI zero-copy: the client's bucket is an HTTPS S3 server on loopback, allowed by IP and trusted by CA.
      ANTI_AI_TARGET_ALLOWED_IPS: '127.0.0.1',
      ANTI_AI_TARGET_EXTRA_CA_FILE: path.join(clientTlsDir(name), 'cert.pem'),
      // A hostile target (e2e/egress) ends within seconds instead of the production budget of two minutes.
      ANTI_AI_TARGET_DEADLINE_MS: '8000',
      ...tracingEnv(base),
    },
  };
}
