// Rendering the chart with the real helm and reading what it made, for the chart tests.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { renderChart, VALUES_DIR } from './helm-binary';

/** The fields of Kubernetes objects the tests read (the validator checks the rest against the schemas). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

export interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  command: string[];
  workingDir?: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports: { name: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}

export interface DeploymentSpec {
  replicas?: number;
  template: { spec: { containers: Container[]; terminationGracePeriodSeconds: number; serviceAccountName: string } };
}

export const SERVICES = ['api-gateway', 'orders', 'uploads', 'watermark-processor', 'ai-detector', 'reports', 'webhooks', 'retention'];

/** The values files beside the defaults (deploy/values/). */
export const VALUES_FILES = {
  minimal: path.join(VALUES_DIR, 'minimal.yaml'),
  production: path.join(VALUES_DIR, 'production.yaml'),
  /** A team's release: its service alone (deploy/values/services/<service>.yaml). */
  service: (service: string): string => path.join(VALUES_DIR, 'services', `${service}.yaml`),
};

export interface Rendered {
  manifest: string;
  objects: K8sObject[];
}

export async function render(values: string[] = [], set: string[] = []): Promise<Rendered> {
  const result = await renderChart({ values, set });
  if (result.code !== 0) {
    throw new Error(`helm template failed: ${result.stderr}`);
  }
  const objects = parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
  return { manifest: result.stdout, objects };
}

export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function countByKind(objects: K8sObject[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const object of objects) {
    counts[object.kind] = (counts[object.kind] ?? 0) + 1;
  }
  return counts;
}

export function deploymentSpec(object: K8sObject): DeploymentSpec {
  return object.spec as unknown as DeploymentSpec;
}

export interface ValidationResult {
  apiVersion: string;
  kind: string;
  name: string;
  errors: string[];
}

/** Validates a YAML stream against the Kubernetes (and CRD) OpenAPI schemas: validate-manifests.mjs. */
export function validateManifests(yamlText: string): Promise<ValidationResult[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(__dirname, 'validate-manifests.mjs')],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as ValidationResult[]);
        } catch {
          reject(new Error(`validator failed: ${error?.message ?? ''} ${stderr}`));
        }
      },
    );
    child.stdin?.end(yamlText);
  });
}
