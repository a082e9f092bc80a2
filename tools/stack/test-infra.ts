// Infrastructure of one `npm test` run: PostgreSQL (started if down), a private NATS server with a
// fresh JetStream store on its own port, two private three-node JetStream clusters, and fresh test databases.
// The first serves the replication tests and the e2e stack; the second only the fault-injection file's stack
// (run as E2E_NAME `<name>_faults`), which kills its nodes: npm test runs that file beside the integration tests,
// and on a cluster no earlier run has left streams in.
//   node -r ./tools/register.js tools/stack/test-infra.ts up    → prints `export …` lines for the shell
//   node -r ./tools/register.js tools/stack/test-infra.ts down
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDatabase, ensurePostgres, natsClusterFile, natsClusterNodes, natsClusterUrl, portOpen, ROOT, startNatsCluster, startPrivateNats } from './stack';

const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// E2E_NAME keeps the infrastructure of parallel runs apart (its own NATS and databases).
const runName = (process.env.E2E_NAME ?? 'e2e').replace(/[^a-z0-9_]/g, '_');
const stateDir = path.join(ROOT, 'tmp', `${runName}-nats`);
const pidFile = path.join(ROOT, 'tmp', `${runName}-nats.pid`);
/** The clusters by the run (E2E_NAME) whose stack uses them: chaos.e2e-spec finds its cluster's nodes by that name. */
const clusterNames = { tests: runName, faults: `${runName}_faults` };
const testDatabase = runName === 'e2e' ? 'cp_test' : `cp_${runName}_test`;
const e2eDatabase = `cp_${runName}`;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function up(): Promise<void> {
  await down();
  await ensurePostgres(adminUrl);
  await createDatabase(adminUrl, testDatabase, true);
  await createDatabase(adminUrl, e2eDatabase, true);
  let port = Number(process.env.TEST_NATS_PORT ?? 4223);
  while (await portOpen('127.0.0.1', port)) {
    port += 1;
  }
  rmSync(stateDir, { recursive: true, force: true });
  const pid = await startPrivateNats(port, stateDir);
  writeFileSync(pidFile, String(pid));
  // Each cluster takes three client ports and three route ports, all free: from TEST_NATS_CLUSTER_PORT, else
  // inside the e2e stack's own range (E2E_PORT_BASE + 960…971, beside its PostgreSQL at +950), else from 7222.
  const portBase = process.env.E2E_PORT_BASE;
  let clusterBase = Number(process.env.TEST_NATS_CLUSTER_PORT ?? (portBase ? Number(portBase) + 960 : 7222));
  const taken = async (base: number): Promise<boolean> => (await Promise.all([0, 1, 2, 3, 4, 5].map((offset) => portOpen('127.0.0.1', base + offset)))).some(Boolean);
  const urls: Record<keyof typeof clusterNames, string> = { tests: '', faults: '' };
  for (const [role, name] of Object.entries(clusterNames) as Array<[keyof typeof clusterNames, string]>) {
    while (await taken(clusterBase)) {
      clusterBase += 6;
    }
    const clusterDir = path.join(ROOT, 'tmp', `${name}-nats-cluster`);
    rmSync(clusterDir, { recursive: true, force: true });
    const nodes = natsClusterNodes(clusterBase, clusterBase + 3, clusterDir);
    const pids = await startNatsCluster(nodes);
    writeFileSync(natsClusterFile(name), JSON.stringify({ nodes, pids }, null, 2));
    urls[role] = natsClusterUrl(nodes);
    clusterBase += 6;
  }
  process.stdout.write(
    [
      `export DATABASE_ADMIN_URL='${adminUrl}'`,
      `export TEST_DATABASE_URL='${withDatabase(adminUrl, testDatabase)}'`,
      `export E2E_DATABASE='${e2eDatabase}'`,
      `export TEST_NATS_URL='nats://127.0.0.1:${port}'`,
      `export TEST_NATS_CLUSTER_URL='${urls.tests}'`,
      `export FAULTS_NATS_CLUSTER_URL='${urls.faults}'`,
      '',
    ].join('\n'),
  );
}

async function down(): Promise<void> {
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
    rmSync(pidFile, { force: true });
  }
  for (const name of Object.values(clusterNames)) {
    if (!existsSync(natsClusterFile(name))) {
      continue;
    }
    const { pids } = JSON.parse(readFileSync(natsClusterFile(name), 'utf8')) as { pids: number[] };
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(natsClusterFile(name), { force: true });
  }
}

const command = process.argv[2];
(command === 'up' ? up() : command === 'down' ? down() : Promise.reject(new Error('usage: test-infra.ts up|down'))).catch(
  (error: unknown) => {
    process.stderr.write(`[test-infra] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
