import path from 'node:path';
import { ROOT, SERVICE_NAMES, ServiceName, StackLayout } from '../../tools/stack/stack';

/** The e2e stack: its own database, the test run's NATS, ports apart from `npm start`'s, two gateway replicas. */
export function e2eLayout(): StackLayout {
  const ports = Object.fromEntries(SERVICE_NAMES.map((service, index) => [service, [4100 + index]])) as Record<ServiceName, number[]>;
  ports['api-gateway'] = [4000, 4010];
  return {
    name: 'e2e',
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: process.env.E2E_DATABASE ?? 'cp_e2e',
    natsUrl: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
    s3Port: 4900,
    ports,
    logLevel: 'info',
    clockOffsetFile: path.join(ROOT, 'tmp', 'e2e', 'clock-offset-ms'),
  };
}
