// The chart boots the code: every Deployment the chart renders (default values) is started from the
// `npm run build` output with exactly its command, its ConfigMap and the secret keys it names, against
// real PostgreSQL, NATS JetStream and S3 on this machine (addresses substituted), and the probes it
// declares must answer; then its preStop hook runs and the pod drains. A variable or path on which the
// chart and the code disagree fails here.
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateDevelopmentCredentials } from '@cp/anti-ai';
import { Client as S3Client } from 'minio';
import S3rver from 's3rver';
import { behaveLikeMinio, freePort } from '@cp/testing';
import { createDatabase, ROOT, startPrivateNats, waitReady } from '../stack/stack';
import { Container, deploymentSpec, K8sObject, ofKind, render } from './chart-manifests';

const adminUrl = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `cp_${(process.env.E2E_NAME ?? 'e2e').replace(/[^a-z0-9_]/g, '_')}_chart_boot`;

async function get(port: number, probePath: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${probePath}`);
  await response.arrayBuffer();
  return response.status;
}

/** How the process ended: NestJS re-raises SIGTERM after its shutdown hooks ran, so that counts as clean. */
function exited(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.signalCode ?? `exit ${child.exitCode}`);
      return;
    }
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
  });
}

describe('the chart boots the built services', () => {
  let objects: K8sObject[];
  let s3: S3rver;
  let s3Port: number;
  let natsPid = 0;
  let natsUrl: string;
  const natsDir = mkdtempSync(path.join(tmpdir(), 'chart-boot-nats-'));
  // Values for the secret keys the chart names; a key the chart names that is missing here fails the test.
  let secrets: Record<string, string>;

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'tools/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    // Default values; only the preStop pause (waiting for endpoints to update, no cluster here) is zero.
    ({ objects } = await render([], ['pod.preStopPauseSeconds=0']));
    await createDatabase(adminUrl, database, true);
    const natsPort = await freePort();
    natsPid = await startPrivateNats(natsPort, natsDir);
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 'chart-boot-s3-')), silent: true, vhostBuckets: false });
    behaveLikeMinio(s3);
    const address = await s3.run();
    s3Port = address.port;
    const databaseUrl = new URL(adminUrl);
    databaseUrl.pathname = `/${database}`;
    const client = new S3Client({ endPoint: '127.0.0.1', port: s3Port, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1' });
    const buckets = new Set(
      ofKind(objects, 'ConfigMap').flatMap((configMap) =>
        Object.entries(configMap.data ?? {}).filter(([key]) => key.startsWith('S3_BUCKET_')).map(([, bucket]) => bucket),
      ),
    );
    for (const bucket of buckets) {
      await client.makeBucket(bucket, 'us-east-1');
    }
    const signer = await generateDevelopmentCredentials('Chart boot test signer');
    secrets = {
      DATABASE_URL: databaseUrl.toString(),
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
      WATERMARK_SECRET: randomBytes(32).toString('hex'),
      TEST_UPLOAD_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: 'smtp://127.0.0.1:2525',
      ANTI_AI_C2PA_CERT_CHAIN_PEM: signer.certificateChainPem,
      ANTI_AI_C2PA_PRIVATE_KEY_PEM: signer.privateKeyPem,
    };
  }, 120_000);

  afterAll(async () => {
    await s3?.close();
    if (natsPid) {
      process.kill(natsPid, 'SIGTERM');
    }
    rmSync(natsDir, { recursive: true, force: true });
  });

  /** The container's environment as Kubernetes would build it, with this machine's addresses. */
  function environment(container: Container, port: number): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const source of container.envFrom ?? []) {
      const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === source.configMapRef?.name);
      expect(configMap).toBeDefined();
      Object.assign(env, configMap?.data);
    }
    for (const variable of container.env ?? []) {
      const key = variable.valueFrom?.secretKeyRef?.key;
      if (key !== undefined) {
        expect(Object.keys(secrets)).toContain(key);
        env[variable.name] = secrets[key];
      } else {
        env[variable.name] = variable.value ?? '';
      }
    }
    const declaredPort = container.ports.find((entry) => entry.name === 'http')?.containerPort;
    expect(env.PORT).toBe(String(declaredPort));
    // Addresses substituted: the cluster's NATS and MinIO become this machine's, the port a free one.
    Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', NATS_URL: natsUrl });
    // The chart gives every pod the same metrics port; here the services share one machine.
    expect(env.METRICS_PORT).toBe(String(container.ports.find((entry) => entry.name === 'metrics')?.containerPort));
    env.METRICS_PORT = '0';
    if (env.S3_ENDPOINT !== undefined) {
      env.S3_ENDPOINT = `http://127.0.0.1:${s3Port}`;
    }
    return env;
  }

  interface Started {
    container: Container;
    env: Record<string, string>;
    port: number;
    child: ChildProcess;
    /** When the process was spawned (ms). */
    started: number;
  }

  /** Spawns the Deployment's container command in its environment and waits until it is ready. */
  async function start(deployment: K8sObject): Promise<Started> {
    const spec = deploymentSpec(deployment);
    const [container] = spec.template.spec.containers;
    const port = await freePort();
    const env = environment(container, port);
    // The chart says S3_CREATE_BUCKETS=false: the buckets are provisioned (beforeAll), as MinIO's would be.
    if (env.S3_ENDPOINT !== undefined) {
      expect(env.S3_CREATE_BUCKETS).toBe('false');
    }
    const [binary, ...args] = container.command;
    expect(binary).toBe('node');
    expect(container.workingDir).toBe('/app');
    let output = '';
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    const started = Date.now();
    try {
      // As long as the startup probe would wait (periodSeconds × failureThreshold): a loaded machine is slow.
      const startup = container.startupProbe;
      await waitReady(port, (startup?.periodSeconds ?? 10) * (startup?.failureThreshold ?? 3) * 1000, child, deployment.metadata.name);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`${String(error)}\n${output}`);
    }
    return { container, env, port, child, started };
  }

  async function boot(deployment: K8sObject): Promise<string> {
    const { container, env, port, child, started } = await start(deployment);
    const phases: string[] = [];
    try {
      phases.push(`ready ${Date.now() - started} ms`);
      const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe];
      for (const probe of probes) {
        expect(probe?.httpGet.port).toBe('http');
        expect(await get(port, probe?.httpGet.path ?? '')).toBe(200);
      }
      // preStop: its command, run in the container's environment, drains the service (not ready after).
      const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
      expect(preStop[0]).toBe('node');
      await promisify(execFile)(process.execPath, preStop.slice(1), { cwd: ROOT, env, timeout: 30_000 });
      phases.push(`drained ${Date.now() - started} ms`);
      const name = deployment.metadata.name;
      expect({ name, afterPreStop: await get(port, container.readinessProbe.httpGet.path) }).toEqual({ name, afterPreStop: 503 });
      expect(await get(port, container.livenessProbe.httpGet.path)).toBe(200);
      child.kill('SIGTERM');
      expect(['exit 0', 'SIGTERM']).toContain(await exited(child));
      phases.push(`stopped ${Date.now() - started} ms`);
      console.log(`${name}: ${phases.join(', ')}`);
      return name;
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGKILL');
      }
    }
  }

  it('starts every rendered Deployment, two at a time, and its probes and preStop answer', async () => {
    const deployments = ofKind(objects, 'Deployment');
    expect(deployments).toHaveLength(8);
    const booted: string[] = [];
    for (let index = 0; index < deployments.length; index += 2) {
      const results = await Promise.allSettled(deployments.slice(index, index + 2).map((deployment) => boot(deployment)));
      for (const result of results) {
        if (result.status === 'rejected') {
          throw result.reason;
        }
        booted.push(result.value);
      }
    }
    expect(booted.sort()).toEqual(deployments.map((deployment) => deployment.metadata.name).sort());
  }, 900_000);

  it("runs the operator's admin CLI from the build inside the gateway's pod: an account it creates is usable at once", async () => {
    // As `kubectl exec deploy/<prefix>-api-gateway -- node dist/tools/admin/admin.js …` (deploy/README.md): the
    // gateway container's environment, its working directory, the built CLI; the orders service applies the credits.
    const byService = (service: string): K8sObject => {
      const deployment = ofKind(objects, 'Deployment').find((object) => object.metadata.name.endsWith(`-${service}`));
      expect(deployment).toBeDefined();
      return deployment as K8sObject;
    };
    const running = await Promise.allSettled([start(byService('api-gateway')), start(byService('orders'))]);
    try {
      const [gateway, orders] = running.map((result) => {
        if (result.status === 'rejected') throw result.reason;
        return result.value;
      });
      expect(orders.port).toBeGreaterThan(0);
      const admin = async (args: string[]): Promise<unknown> => {
        const { stdout } = await promisify(execFile)(process.execPath, ['dist/tools/admin/admin.js', ...args, '--json'], {
          cwd: ROOT,
          env: { ...gateway.env, PORT: '', METRICS_PORT: '' },
          timeout: 60_000,
        });
        return JSON.parse(stdout) as unknown;
      };
      const account = (await admin(['account', 'create', '--name', `ops-${randomBytes(4).toString('hex')}`, '--plan', 'pro', '--credits', '5'])) as Record<string, unknown>;
      expect(account).toMatchObject({ plan: 'pro', credits: 5, creditsApplied: true, balance: 5 });
      const key = (await admin(['key', 'issue', '--account', String(account.accountId), '--mode', 'live'])) as Record<string, unknown>;
      const response = await fetch(`http://127.0.0.1:${gateway.port}/api/v3/orders/999999`, { headers: { Authorization: `Bearer ${String(key.key)}` } });
      await response.arrayBuffer();
      // Authenticated: the order is missing, not the key.
      expect(response.status).toBe(404);
      // Parked messages, over the gateway's NATS_URL: none on this fresh stream.
      expect(await admin(['parked', 'list'])).toEqual([]);
    } finally {
      for (const result of running) {
        if (result.status === 'fulfilled') {
          result.value.child.kill('SIGTERM');
          await exited(result.value.child);
        }
      }
    }
  }, 300_000);
});
