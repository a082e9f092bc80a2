// The Helm chart checked by the real helm (tools/helm/helm-binary.ts): lint, render with four values
// files, every object validated against the Kubernetes OpenAPI schemas, values refused by the schema.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DURABLES, deadlineVariableOf } from '@cp/contracts';
import { documentedRows } from '@cp/config/testing';
import { CHART_DIR, helm } from './helm-binary';
import {
  countByKind,
  deploymentSpec,
  K8sObject,
  ofKind,
  render,
  Rendered,
  SERVICES,
  validateManifests,
  VALUES_FILES,
} from './chart-manifests';

const ROOT = path.resolve(__dirname, '../..');
const WORKERS = ['watermark-processor', 'reports', 'ai-detector'];

/**
 * The metrics the code defines (the `name` of every prom-client metric in apps/ and libs/, and the queue gauges
 * made by `consumerGauge`), as Prometheus exposes them: histograms also as _bucket, _count and _sum.
 */
function servedMetrics(): Set<string> {
  const names = new Set<string>();
  for (const name of definedMetrics()) {
    names.add(name);
    for (const suffix of ['_bucket', '_count', '_sum']) {
      names.add(`${name}${suffix}`);
    }
  }
  return names;
}

/** The `name` of every prom-client metric in apps/ and libs/, and of the queue gauges made by `consumerGauge`. */
function definedMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') {
        walk(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        const source = readFileSync(file, 'utf8');
        if (!source.includes("from 'prom-client'")) {
          continue;
        }
        for (const match of source.matchAll(/(?:name: |consumerGauge\(\s*)'([a-z][a-z0-9_]*)'/g)) {
          names.add(match[1]);
        }
      }
    }
  };
  walk(path.join(ROOT, 'apps'));
  walk(path.join(ROOT, 'libs'));
  return names;
}

/**
 * The durable names of a service's consumers of the JOBS work queue, read from its source: every `durable: '…'` of a
 * consumer definition that takes a `message: Jobs.…` (`workerJobConsumer`, `fileJobConsumer`, `register`).
 */
function jobConsumersInCode(service: string): string[] {
  const durables: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        walk(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        for (const match of readFileSync(file, 'utf8').matchAll(/durable: '([a-z0-9-]+)',(?:[^{}]|\{[^{}]*\})*?message: Jobs\./g)) {
          durables.push(match[1]);
        }
      }
    }
  };
  walk(path.join(ROOT, 'apps', service, 'src'));
  return durables.sort();
}

/** The metric names a PromQL expression selects (every selector in the chart is written `name{…}` or `name[…]`). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*[{[]/g)].map((match) => match[1]).filter((name) => !['by', 'without', 'on', 'ignoring'].includes(name));
}

const cases: [string, string[]][] = [
  ['default', []],
  ['minimal', [VALUES_FILES.minimal]],
  ['production', [VALUES_FILES.production]],
  ['one service alone', [VALUES_FILES.production, VALUES_FILES.service('watermark-processor')]],
];

const rendered = new Map<string, Rendered>();

beforeAll(async () => {
  for (const [name, values] of cases) {
    rendered.set(name, await render(values));
  }
}, 120_000);

function get(name: string): Rendered {
  const result = rendered.get(name);
  if (!result) {
    throw new Error(`${name} was not rendered`);
  }
  return result;
}

function byName(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    throw new Error(`${kind} ${name} not rendered`);
  }
  return found;
}

describe('Helm chart', () => {
  it.each(cases)('helm lint --strict passes with the %s values', async (_name, values) => {
    const result = await helm(['lint', '--strict', CHART_DIR, ...values.flatMap((file) => ['-f', file])]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it.each(cases)('every object rendered with the %s values is valid against the Kubernetes OpenAPI schemas', async (name) => {
    const { manifest, objects } = get(name);
    const results = await validateManifests(manifest);
    expect(results).toHaveLength(objects.length);
    expect(results.filter((result) => result.errors.length > 0)).toEqual([]);
    console.log(`${name}: ${objects.length} objects ${JSON.stringify(countByKind(objects))}, all valid`);
  });

  it('the validator refuses objects that break the schemas (so a pass above means something)', async () => {
    const results = await validateManifests(
      [
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: a }\nspec: { selector: {}, template: { spec: { containers: [{ name: a, ports: [{ containerPort: "80" }] }] } } }',
        'apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: { name: b }\nspec: { triggers: [] }',
        'apiVersion: example.com/v1\nkind: Unknown\nmetadata: { name: c }',
        // external-secrets.io/v1 is checked against the v1beta1 schema (validate-manifests.mjs says why)
        'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: { name: d }\nspec: { refreshInterval: 5, secretStoreRef: { name: s, kind: ClusterSecretStore } }',
      ].join('\n---\n'),
    );
    expect(results.map((result) => result.errors.length > 0)).toEqual([true, true, true, true]);
    expect(results[0].errors.join()).toContain('containerPort must be integer');
    expect(results[1].errors.join()).toContain('scaleTargetRef');
    expect(results[2].errors.join()).toContain('no schema');
    expect(results[3].errors.join()).toContain('refreshInterval must be string');
  });

  it('default values: all eight services, each with its own Deployment, Service, ConfigMap, ServiceAccount, PDB and NetworkPolicy', () => {
    const { objects } = get('default');
    expect(countByKind(objects)).toEqual({
      ConfigMap: 8,
      Deployment: 8,
      Service: 8,
      ServiceAccount: 8,
      PodDisruptionBudget: 8,
      NetworkPolicy: 8,
      Ingress: 2,
    });
    for (const service of SERVICES) {
      const name = `content-protection-${service}`;
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'ServiceAccount', 'PodDisruptionBudget', 'NetworkPolicy']) {
        expect(byName(objects, kind, name).metadata.labels?.['app.kubernetes.io/name']).toBe(service);
      }
      const spec = deploymentSpec(byName(objects, 'Deployment', name));
      expect(spec.template.spec.serviceAccountName).toBe(name);
      const [container] = spec.template.spec.containers;
      expect(container.command).toEqual(['node', '--enable-source-maps', `dist/apps/${service}/src/main.js`]);
      // Secrets only by key from a Secret, never as literal values or a whole-Secret envFrom.
      expect(container.envFrom?.every((source) => source.secretRef === undefined)).toBe(true);
      expect(container.env?.every((variable) => variable.valueFrom?.secretKeyRef?.name === 'content-protection')).toBe(true);
      expect(container.lifecycle?.preStop?.exec?.command.join(' ')).toContain('/drain');
    }
  });

  it('minimal values: one replica each, no PDB, NetworkPolicy or Ingress', () => {
    const { objects } = get('minimal');
    expect(countByKind(objects)).toEqual({ ConfigMap: 8, Deployment: 8, Service: 8, ServiceAccount: 8 });
    expect(ofKind(objects, 'Deployment').map((object) => deploymentSpec(object).replicas)).toEqual(Array(8).fill(1));
  });

  it('production values: image by digest, ExternalSecrets, gateway HPA on CPU, KEDA on the JetStream work queues, monitoring', () => {
    const { objects } = get('production');
    const counts = countByKind(objects);
    expect(counts).toMatchObject({ ExternalSecret: 8, HorizontalPodAutoscaler: 1, ScaledObject: 3, ServiceMonitor: 8, PrometheusRule: 8 });
    for (const deployment of ofKind(objects, 'Deployment')) {
      const spec = deploymentSpec(deployment);
      expect(spec.template.spec.containers[0].image).toMatch(/^registry\.example\.invalid\/content-protection@sha256:[a-f0-9]{64}$/);
      const service = deployment.metadata.labels?.['app.kubernetes.io/name'] ?? '';
      // The HPA or KEDA owns the replica count of an autoscaled service.
      expect(spec.replicas === undefined).toBe(service === 'api-gateway' || WORKERS.includes(service));
    }
    const hpa = ofKind(objects, 'HorizontalPodAutoscaler')[0];
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'content-protection-api-gateway' },
      metrics: [{ type: 'Resource', resource: { name: 'cpu' } }],
    });
    const scaled = Object.fromEntries(
      ofKind(objects, 'ScaledObject').map((object) => {
        const spec = object.spec as { scaleTargetRef: { name: string }; triggers: { type: string; metadata: Record<string, string> }[] };
        expect(spec.triggers.every((trigger) => trigger.type === 'nats-jetstream' && trigger.metadata.stream === 'JOBS')).toBe(true);
        return [spec.scaleTargetRef.name, spec.triggers.map((trigger) => trigger.metadata.consumer)];
      }),
    );
    expect(scaled).toEqual({
      'content-protection-watermark-processor': ['watermark-embed', 'watermark-extract', 'watermark-package', 'watermark-anti-ai'],
      'content-protection-reports': ['reports-generate'],
      'content-protection-ai-detector': ['aidetect-detect'],
    });
    // Every work queue a worker consumes scales it: a queue left out (anti-AI jobs were) waits on the replicas the
    // other queues asked for, however long its backlog.
    for (const service of WORKERS) {
      expect({ service, consumers: [...(scaled[`content-protection-${service}`] ?? [])].sort() }).toEqual({ service, consumers: jobConsumersInCode(service) });
    }
    // Each ExternalSecret makes the Secret its Deployment reads, with exactly the keys it reads.
    for (const service of SERVICES) {
      const name = `content-protection-${service}`;
      const external = byName(objects, 'ExternalSecret', name).spec as { target: { name: string }; data: { secretKey: string }[] };
      const env = deploymentSpec(byName(objects, 'Deployment', name)).template.spec.containers[0].env ?? [];
      expect(env.map((variable) => variable.valueFrom?.secretKeyRef?.name)).toEqual(env.map(() => external.target.name));
      expect(env.map((variable) => variable.name)).toEqual(external.data.map((entry) => entry.secretKey));
    }
    // Every service keeps its streams at three copies on the three NATS nodes it lists.
    for (const service of SERVICES) {
      const data = byName(objects, 'ConfigMap', `content-protection-${service}`).data ?? {};
      expect([data.NATS_STREAM_REPLICAS, data.NATS_URL?.split(',').length]).toEqual(['3', 3]);
    }
    const rules = JSON.stringify(ofKind(objects, 'PrometheusRule').map((object) => object.spec));
    for (const alert of ['Http5xxRate', 'MessagesParked', 'ProcessingDelayed', 'WebhookFailures']) {
      expect(rules).toContain(`ContentProtection${alert}`);
    }
  });

  it('monitoring: the alerts the issue asks for, and a Grafana dashboard, query only metrics the services serve', () => {
    const { objects } = get('production');
    const served = servedMetrics();
    const alerts = ofKind(objects, 'PrometheusRule').flatMap((object) =>
      (object.spec as { groups: Array<{ rules: Array<{ alert: string; expr: string; labels: { service: string } }> }> }).groups.flatMap((group) => group.rules),
    );
    const alertsOf = (service: string): string[] => alerts.filter((rule) => rule.labels.service === service).map((rule) => rule.alert);
    // Stuck orders, outbox lag, parked messages, webhook failure rate (issue 33); queues and RPC failures everywhere.
    expect(alertsOf('orders')).toEqual(expect.arrayContaining(['ContentProtectionStuckOrders', 'ContentProtectionOutboxLag', 'ContentProtectionMessagesParked']));
    expect(alertsOf('webhooks')).toEqual(expect.arrayContaining(['ContentProtectionWebhookFailureRate', 'ContentProtectionWebhookFailures']));
    for (const service of SERVICES) {
      expect(alertsOf(service)).toEqual(
        expect.arrayContaining(['ContentProtectionOutboxLag', 'ContentProtectionOutboxParked', 'ContentProtectionMessagesParked', 'ContentProtectionQueueStalled', 'ContentProtectionRpcFailures']),
      );
    }
    expect(alertsOf('api-gateway')).not.toContain('ContentProtectionStuckOrders');
    for (const rule of alerts) {
      expect({ alert: rule.alert, unknown: metricsIn(rule.expr).filter((metric) => !served.has(metric)) }).toEqual({ alert: rule.alert, unknown: [] });
    }

    const [dashboardMap] = objects.filter((object) => object.metadata.name === 'content-protection-api-gateway-grafana-dashboard');
    expect(dashboardMap.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const dashboard = JSON.parse((dashboardMap as unknown as { data: Record<string, string> }).data['content-protection.json']) as {
      uid: string;
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    expect(dashboard.uid).toBe('content-protection');
    const queried = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricsIn(target.expr))));
    expect([...queried].filter((metric) => !served.has(metric))).toEqual([]);
    // RED per route, RPC subject and job type; queue depth and age per consumer; outbox lag; parked; stuck orders; webhooks.
    const queriedBase = new Set([...queried].map((metric) => metric.replace(/_(bucket|count|sum)$/, '')));
    for (const metric of [
      'http_request_duration_seconds',
      'rpc_server_duration_seconds',
      'messaging_messages_handled_total',
      'messaging_attempt_duration_seconds',
      'messaging_consumer_pending_messages',
      'messaging_consumer_oldest_message_age_seconds',
      'outbox_oldest_unpublished_age_seconds',
      'messaging_parked_messages',
      'orders_in_progress_oldest_unchanged_age_seconds',
      'webhook_delivery_attempts_total',
    ]) {
      expect(queriedBase).toContain(metric);
    }
    expect(ofKind(get('default').objects, 'ConfigMap').filter((object) => object.metadata.name.endsWith('-grafana-dashboard'))).toEqual([]);
  });

  it('docs/operations.md lists every metric the code defines, and only those', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Metrics, alerts and the dashboard'), doc.indexOf('## Per-account shares'));
    const documented = new Set(
      section
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...line.split(' | ')[0].matchAll(/`([a-z][a-z0-9_]*)`/g)].map((match) => match[1])),
    );
    const defined = definedMetrics();
    expect({ undocumented: [...defined].filter((name) => !documented.has(name)).sort(), notInCode: [...documented].filter((name) => !defined.has(name)).sort() }).toEqual({
      undocumented: [],
      notInCode: [],
    });
  });

  it('deploy/README names every alert the chart renders, and its values table every `metrics` key', () => {
    const readme = readFileSync(path.join(ROOT, 'deploy/README.md'), 'utf8');
    const monitoring = readme.slice(readme.indexOf('## Monitoring'), readme.indexOf('## Network policies'));
    const alerts = new Set(
      ofKind(get('production').objects, 'PrometheusRule').flatMap((object) =>
        (object.spec as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups.flatMap((group) => group.rules.map((rule) => rule.alert)),
      ),
    );
    expect([...alerts].filter((alert) => !monitoring.includes(`\`${alert}\``))).toEqual([]);
    // Rows name keys as `a.b.c`, `.d` (a sibling of the key before) or `a.{b,c}.d`.
    const documented = new Set<string>();
    for (const line of readme.split('\n').filter((row) => row.startsWith('| `'))) {
      let parent = '';
      for (const [, key] of line.split(' | ')[0].matchAll(/`([^`]+)`/g)) {
        const full = key.startsWith('.') ? `${parent}${key}` : key;
        parent = full.slice(0, full.lastIndexOf('.'));
        const braces = /^(.*)\{([^}]*)\}(.*)$/.exec(full);
        for (const expanded of braces ? braces[2].split(',').map((part) => `${braces[1]}${part}${braces[3]}`) : [full]) {
          documented.add(expanded);
        }
      }
    }
    const metrics = (parse(readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8')) as { metrics: Record<string, unknown> }).metrics;
    const keys = Object.entries(metrics).flatMap(([group, value]) =>
      value !== null && typeof value === 'object' ? Object.keys(value).map((key) => `metrics.${group}.${key}`) : [`metrics.${group}`],
    );
    expect(keys.filter((key) => !documented.has(key))).toEqual([]);
  });

  it('metrics: every service serves them on its own `metrics` port, which the Service exposes and the ServiceMonitor scrapes (never the API port)', () => {
    const { objects } = get('production');
    for (const service of SERVICES) {
      const name = `content-protection-${service}`;
      const [container] = deploymentSpec(byName(objects, 'Deployment', name)).template.spec.containers;
      expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
      expect(byName(objects, 'ConfigMap', name).data).toMatchObject({ METRICS_PORT: '9464' });
      const ports = (byName(objects, 'Service', name).spec as { ports: Array<{ name: string; port: number; targetPort: string }> }).ports;
      expect(ports).toContainEqual({ name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' });
      const endpoints = (byName(objects, 'ServiceMonitor', name).spec as { endpoints: Array<{ port: string; path: string }> }).endpoints;
      expect(endpoints.map((endpoint) => [endpoint.port, endpoint.path])).toEqual([['metrics', '/metrics']]);
      const ingress = (byName(objects, 'NetworkPolicy', name).spec as { ingress: Array<{ from: unknown[]; ports: Array<{ port: string }> }> }).ingress;
      const scrape = ingress.filter((rule) => JSON.stringify(rule.from).includes('monitoring'));
      expect(scrape.map((rule) => rule.ports.map((port) => port.port))).toEqual([['metrics']]);
    }
  });

  it('one service alone: only the watermark processor, with its own tag, replicas and objects', () => {
    const { objects } = get('one service alone');
    expect(countByKind(objects)).toEqual({
      ConfigMap: 1,
      Deployment: 1,
      Service: 1,
      ServiceAccount: 1,
      PodDisruptionBudget: 1,
      NetworkPolicy: 1,
      ExternalSecret: 1,
      ServiceMonitor: 1,
      PrometheusRule: 1,
      ScaledObject: 1,
    });
    expect(objects.every((object) => object.metadata.name.startsWith('content-protection-watermark-processor'))).toBe(true);
    const [container] = deploymentSpec(ofKind(objects, 'Deployment')[0]).template.spec.containers;
    // The team's own tag wins over the platform's digest.
    expect(container.image).toBe('registry.example.invalid/content-protection:0.1.0');
  });

  it("every team's values file renders its service alone, valid, with no object of another service", async () => {
    const manifests: string[] = [];
    for (const service of SERVICES) {
      const { manifest, objects } = await render([VALUES_FILES.production, VALUES_FILES.service(service)]);
      manifests.push(manifest);
      expect(new Set(objects.map((object) => object.metadata.labels?.['app.kubernetes.io/name']))).toEqual(new Set([service]));
      expect(ofKind(objects, 'Deployment')).toHaveLength(1);
      expect(ofKind(objects, 'Ingress')).toHaveLength(service === 'api-gateway' ? 2 : 0);
      if (service === 'api-gateway') {
        // The API keeps production's 1m body limit at the ingress; the test-upload sink's path streams its 256 MiB.
        const annotations = (name: string) => byName(objects, 'Ingress', name).metadata.annotations ?? {};
        expect(annotations('content-protection-api-gateway')['nginx.ingress.kubernetes.io/proxy-body-size']).toBe('1m');
        expect(annotations('content-protection-api-gateway-test-uploads')).toMatchObject({
          'nginx.ingress.kubernetes.io/proxy-body-size': '257m',
          'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
        });
      }
      // One dashboard for the platform, in the release that holds the gateway.
      expect(objects.filter((object) => object.metadata.name.endsWith('-grafana-dashboard'))).toHaveLength(service === 'api-gateway' ? 1 : 0);
    }
    const results = await validateManifests(manifests.join('\n---\n'));
    expect(results.length).toBeGreaterThan(SERVICES.length * 8);
    expect(results.filter((result) => result.errors.length > 0)).toEqual([]);
  }, 120_000);

  it('NetworkPolicies: ingress only to the gateway, egress to the dependencies, the internet on 443 only for uploads (source URLs), webhooks (deliveries) and the processor (anti-AI zero-copy PUTs)', () => {
    const { objects } = get('default');
    for (const service of SERVICES) {
      const spec = byName(objects, 'NetworkPolicy', `content-protection-${service}`).spec as {
        ingress: unknown[];
        egress: { to: { ipBlock?: { cidr: string } }[]; ports: { port: number }[] }[];
      };
      expect(spec.ingress.length).toBe(service === 'api-gateway' ? 1 : 0);
      const ports = spec.egress.flatMap((rule) => rule.ports.map((port) => port.port));
      expect(ports).toEqual(expect.arrayContaining([53, 4222, 5432]));
      // Every service reaches S3 (the gateway relays presigned reads of anti-AI results).
      expect(ports.includes(9000)).toBe(true);
      const internet = spec.egress.filter((rule) => rule.to.some((peer) => peer.ipBlock?.cidr === '0.0.0.0/0'));
      expect(internet.length).toBe(['uploads', 'webhooks', 'watermark-processor'].includes(service) ? 1 : 0);
      expect(internet.flatMap((rule) => rule.ports.map((port) => port.port))).toEqual(internet.length ? [443] : []);
    }
  });

  it('ConfigMaps set only variables docs/configuration.md lists: a service\'s own `env` for that service, the shared `config` for one service at least', () => {
    const rows = documentedRows();
    const readBy = (name: string): string[] => rows.filter((row) => row.names.includes(name)).flatMap((row) => row.services);
    // Node's own and the OpenTelemetry SDK's standard variables are read by the runtime, not by a service's class.
    const runtime = (name: string): boolean => name === 'NODE_OPTIONS' || name.startsWith('OTEL_');
    const configOf = (file: string): string[] => Object.keys((parse(readFileSync(file, 'utf8')) as { config?: Record<string, unknown> }).config ?? {});
    const shared = new Set([...configOf(path.join(CHART_DIR, 'values.yaml')), ...configOf(VALUES_FILES.production)]);
    for (const name of ['default', 'production']) {
      for (const configMap of ofKind(get(name).objects, 'ConfigMap').filter((object) => !object.metadata.name.endsWith('-grafana-dashboard'))) {
        const service = configMap.metadata.labels?.['app.kubernetes.io/name'] ?? '';
        const keys = Object.keys((configMap as unknown as { data: Record<string, string> }).data).filter((key) => !runtime(key));
        const unread = keys.filter((key) => (shared.has(key) ? readBy(key).length === 0 : !readBy(key).includes(service)));
        expect({ values: name, service, unread }).toEqual({ values: name, service, unread: [] });
      }
    }
  });

  it('termination grace periods are longer than the ack wait of the longest job', () => {
    const { objects } = get('default');
    const grace = (service: string): number =>
      deploymentSpec(byName(objects, 'Deployment', `content-protection-${service}`)).template.spec.terminationGracePeriodSeconds;
    // From the consumers' code: the processor's longest ack wait is anti-AI's 120 s (330 s also lets most embeds
    // finish); an uploads fetch downloads for at most SOURCE_FETCH_DEADLINE_MS, 120 s.
    expect(grace('watermark-processor')).toBeGreaterThan(300);
    expect(grace('uploads')).toBeGreaterThan(120);
    const reportsConfig = byName(objects, 'ConfigMap', 'content-protection-reports').data ?? {};
    expect(grace('reports')).toBeGreaterThan(Number(reportsConfig.REPORTS_JOB_ACK_WAIT_MS) / 1000);
  });

  const refused: [string, string, string][] = [
    ['a negative replica count', 'services.orders.replicas=-1', 'services.orders.replicas'],
    ['an unknown service key (typo)', 'services.orders.replica=2', 'replica'],
    ['a secret in the ConfigMap', 'config.DATABASE_URL=postgres://u:p@db/x', 'config.DATABASE_URL'],
    ['an image digest that is not sha256', 'image.digest=latest', 'image.digest'],
    ['KEDA on a service that has no work queue', 'services.orders.keda.enabled=true', 'services.orders'],
    ['an HPA on a worker', 'services.reports.autoscaling.enabled=true', 'services.reports'],
    ['a NATS URL that is not nats://', 'config.NATS_URL=http://nats:4222', 'config.NATS_URL'],
    ['a grace period shorter than 30 s', 'services.watermark-processor.terminationGracePeriodSeconds=5', 'terminationGracePeriodSeconds'],
    ['a Deployment without DATABASE_URL', 'services.retention.secretKeys={S3_ACCESS_KEY}', 'services.retention.secretKeys'],
    ['an unknown secret store kind', 'secrets.externalSecret.secretStoreRef.kind=Vault', 'kind'],
    ['three copies of each stream on a single NATS node', 'config.NATS_STREAM_REPLICAS=3', 'natsCluster.nodes: Must be greater than or equal to 3'],
    // Origins the services would refuse at start (a URL parser cannot read them, or they carry credentials).
    ['a storage endpoint with a port that is not a number', 'config.S3_PUBLIC_ENDPOINT=http://files:port', 'config.S3_PUBLIC_ENDPOINT'],
    ['a storage endpoint with credentials', 'config.S3_ENDPOINT=http://user:secret@minio:9000', 'config.S3_ENDPOINT'],
    ['a public base URL with a path', 'config.PUBLIC_BASE_URL=https://api.example.invalid/api', 'config.PUBLIC_BASE_URL'],
    // Read by two services each (orders and uploads, a worker and uploads): set in one service's env, they differ.
    ['the upload window in one service\'s env', 'services.orders.env.UPLOAD_WINDOW_HOURS=3', 'services.orders.env'],
    ['an input limit in one service\'s env', 'services.watermark-processor.env.WATERMARK_MAX_INPUT_BYTES=1048576', 'services.watermark-processor.env'],
    ['the AI-detection input limit in one service\'s env', 'services.uploads.env.AI_DETECTION_MAX_INPUT_BYTES=1048576', 'services.uploads.env'],    // The services read a switch as true/false, 1/0 or yes/no: another word would stop every one at start.
    ['a switch word the services refuse', 'config.S3_CREATE_BUCKETS=on', 'config.S3_CREATE_BUCKETS'],
  ];

  it.each(refused)('values.schema.json makes helm refuse %s', async (_what, pair, path) => {
    const result = await helm(['template', 'cp', CHART_DIR, '--set', pair]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("values don't meet the specifications of the schema");
    expect(result.stderr).toContain(path);
  });

  it('a switch is taken as a YAML boolean or as any word the services read, and reaches them as a string', async () => {
    for (const [pair, expected] of [
      ['config.S3_CREATE_BUCKETS=true', 'true'],
      ['config.S3_CREATE_BUCKETS=false', 'false'],
      ['config.S3_CREATE_BUCKETS=No', 'No'],
      ['config.S3_CREATE_BUCKETS=1', '1'],
    ] as const) {
      const { objects } = await render([], [pair]);
      expect(byName(objects, 'ConfigMap', 'content-protection-uploads').data).toMatchObject({ S3_CREATE_BUCKETS: expected });
    }
  });

  it('the variables two services read alike go in the shared config, which gives them to both', async () => {
    const { objects } = await render([], ['config.UPLOAD_WINDOW_HOURS=3', 'config.WATERMARK_MAX_INPUT_BYTES=1048576']);
    for (const service of ['orders', 'uploads', 'watermark-processor']) {
      expect(byName(objects, 'ConfigMap', `content-protection-${service}`).data).toMatchObject({ UPLOAD_WINDOW_HOURS: '3', WATERMARK_MAX_INPUT_BYTES: '1048576' });
    }
  });

  it('a stream bound the services would refuse at start is refused by helm, quoted (as values.yaml writes it) or not', async () => {
    for (const [flag, value] of [
      ['--set-string', '8'],
      ['--set-string', '2000000'],
      ['--set', '2000000'],
    ]) {
      const result = await helm(['template', 'cp', CHART_DIR, flag, `config.NATS_STREAM_MAX_MIB=${value}`]);
      expect({ flag, value, failed: result.code !== 0, refused: result.stderr.includes('config.NATS_STREAM_MAX_MIB') }).toEqual({ flag, value, failed: true, refused: true });
    }
    for (const value of ['16', '1048576']) {
      const result = await helm(['template', 'cp', CHART_DIR, '--set-string', `config.NATS_STREAM_MAX_MIB=${value}`]);
      expect({ value, code: result.code, stderr: result.stderr }).toEqual({ value, code: 0, stderr: '' });
    }
  });

  it('a JOB_DEADLINE_MS_ variable the services would refuse at start (no such consumer, a value out of range) is refused by helm, in `config` and in a service\'s `env`', async () => {
    const schema = JSON.parse(readFileSync(path.join(CHART_DIR, 'values.schema.json'), 'utf8')) as { definitions: { jobDeadlineName: { anyOf: Array<{ enum?: string[] }> } } };
    expect(schema.definitions.jobDeadlineName.anyOf.flatMap((branch) => branch.enum ?? [])).toEqual(DURABLES.map(deadlineVariableOf));
    for (const [key, flag, value] of [
      ['config.JOB_DEADLINE_MS_WATERMARK_EMBEDD', '--set-string', '900000'],
      ['services.uploads.env.JOB_DEADLINE_MS_UPLOADS_FETCH', '--set-string', '900000'],
      ['config.JOB_DEADLINE_MS_WATERMARK_EMBED', '--set-string', '999'],
      ['config.JOB_DEADLINE_MS_WATERMARK_EMBED', '--set', '86400001'],
      ['services.reports.env.JOB_DEADLINE_MS_REPORTS_GENERATE', '--set-string', '5m'],
    ]) {
      const result = await helm(['template', 'cp', CHART_DIR, flag, `${key}=${value}`]);
      const variable = key.split('.').pop() ?? key;
      expect({ key, value, failed: result.code !== 0, named: result.stderr.includes(variable) }).toEqual({ key, value, failed: true, named: true });
    }
    for (const [key, flag, value] of [
      ['config.JOB_DEADLINE_MS_WATERMARK_EMBED', '--set-string', '1800000'],
      ['services.retention.env.JOB_DEADLINE_MS_RETENTION_ORDER_STATUS', '--set', '86400000'],
    ]) {
      const result = await helm(['template', 'cp', CHART_DIR, flag, `${key}=${value}`]);
      expect({ key, value, code: result.code, stderr: result.stderr }).toEqual({ key, value, code: 0, stderr: '' });
    }
  });

  it('tracing (issue 33): off by default; an OTLP endpoint reaches every service and opens egress to the collector only then', async () => {
    const collectorRules = (objects: K8sObject[], service: string) =>
      ((byName(objects, 'NetworkPolicy', `content-protection-${service}`).spec as { egress: { ports: { port: number }[] }[] }).egress ?? []).filter((rule) =>
        rule.ports.some((port) => port.port === 4318),
      );
    const off = get('default').objects;
    const on = (await render([], ['config.OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector.observability:4318'])).objects;
    for (const service of SERVICES) {
      const name = `content-protection-${service}`;
      expect(byName(off, 'ConfigMap', name).data?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('');
      expect(collectorRules(off, service)).toEqual([]);
      expect(byName(on, 'ConfigMap', name).data?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector.observability:4318');
      expect(collectorRules(on, service)).toHaveLength(1);
    }
    const refused = await helm(['template', 'cp', CHART_DIR, '--set', 'config.OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318']);
    expect(refused.code).not.toBe(0);
  });

  it('stream replication must fit the NATS nodes: 3 copies on 3 nodes render, 5 copies on the production cluster of 3 are refused', async () => {
    const fits = await helm(['template', 'cp', CHART_DIR, '--set', 'config.NATS_STREAM_REPLICAS=3,natsCluster.nodes=3']);
    expect(fits.stderr).toBe('');
    expect(fits.code).toBe(0);
    const tooMany = await helm(['template', 'cp', CHART_DIR, '-f', VALUES_FILES.production, '--set', 'config.NATS_STREAM_REPLICAS=5']);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toContain('natsCluster.nodes: Must be greater than or equal to 5');
  });
});
