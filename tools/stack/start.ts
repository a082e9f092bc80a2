// `npm start`: the whole platform on this machine, a demo account with a live and a test key, and a
// curl line that works. Ctrl-C stops everything it started.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  createDatabase,
  databaseUrl,
  ensureNats,
  ensurePostgres,
  gatewayUrl,
  newStack,
  portOpen,
  ROOT,
  SERVICE_NAMES,
  ServiceName,
  stackDir,
  StackLayout,
  tryCurl,
} from './stack';

function devLayout(): StackLayout {
  const base = Number(process.env.STACK_PORT_BASE ?? 3000);
  const ports = Object.fromEntries(
    SERVICE_NAMES.map((service, index) => [service, [index === 0 ? base : base + 100 + index]]),
  ) as Record<ServiceName, number[]>;
  return {
    name: 'dev',
    adminDatabaseUrl: process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: process.env.STACK_DATABASE ?? 'cp_dev',
    natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    s3Port: Number(process.env.S3_PORT ?? 9000),
    ports,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    // Webhooks in local development: plain HTTP receivers on this machine; failure e-mails as files.
    extraEnv: {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_TARGET_IPS: '127.0.0.1,::1',
      MAIL_OUTBOX_DIR: path.join(ROOT, 'tmp', 'dev', 'mail'),
      // Tracing (issue 33) when asked for: `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm start`.
      ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[1] !== undefined)),
    },
  };
}

async function main(): Promise<void> {
  const layout = devLayout();
  const busy: number[] = [];
  for (const port of [layout.s3Port, ...Object.values(layout.ports).flat()]) {
    if (await portOpen('127.0.0.1', port)) {
      busy.push(port);
    }
  }
  if (busy.length > 0) {
    throw new Error(`ports already in use: ${busy.join(', ')} (is another stack running? set STACK_PORT_BASE, S3_PORT and NATS_URL to move it: two stacks on one NATS answer each other's requests)`);
  }
  await ensurePostgres(layout.adminDatabaseUrl);
  await ensureNats(layout.natsUrl);
  await createDatabase(layout.adminDatabaseUrl, layout.database, false);

  const stack = newStack(layout, false);
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    process.stdout.write('\n[stack] stopping every process it started…\n');
    void stack.stopAll().finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  process.stdout.write(`[stack] starting the S3 server and ${SERVICE_NAMES.length} services (logs in ${path.relative(ROOT, stackDir(layout))}/logs)\n`);
  try {
    await stack.startAll();
  } catch (error) {
    stopping = true;
    await stack.stopAll();
    throw error;
  }
  for (const [key, child] of stack.children) {
    child.once('exit', (code, signal) => {
      if (!stopping) {
        process.stdout.write(`[stack] ${key} exited (${signal ?? code}); see its log\n`);
      }
    });
  }

  const demo = JSON.parse(
    execFileSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'tools/admin/admin.ts'), 'demo', '--json'], {
      env: { ...process.env, DATABASE_URL: databaseUrl(layout) },
    }).toString(),
  ) as { accountId: string; liveKey: string; testKey: string };
  const base = gatewayUrl(layout);
  process.stdout.write(
    [
      '',
      'Content protection platform is up.',
      `  Base URL:      ${base}`,
      `  API docs:      ${base}/api/docs`,
      `  Demo account:  ${demo.accountId} (plan pro, 1000 credits on first start)`,
      `  Live key:      ${demo.liveKey}`,
      `  Test key:      ${demo.testKey}`,
      '',
      'Try:',
      `  ${tryCurl(base, demo.testKey)}`,
      '  (a test order: free, simulated; then GET /api/v3/orders/<orderId> and PUT a file to its uploadUrl)',
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[stack] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
