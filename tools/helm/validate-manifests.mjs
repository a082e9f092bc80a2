#!/usr/bin/env node
// Validates Kubernetes manifests (a multi-document YAML stream on stdin) against the OpenAPI schemas of
// the Kubernetes API (package kubernetes-models, generated from the API's OpenAPI document) and of the
// CRDs the chart uses (KEDA, prometheus-operator, external-secrets: their @kubernetes-models packages).
// Offline. ES modules only, hence .mjs, run as a child process by the chart tests.
// The versions are pinned to the last ones that support Node 20 (kubernetes-models 4.5, generated from
// Kubernetes 1.31; the later majors declare Node >= 22, issue 33). The chart uses only stable APIs.
// Prints JSON: [{ apiVersion, kind, name, errors: string[] }]; exits 1 when any object is invalid.
import { parseAllDocuments } from 'yaml';

/** apiVersion → module folder; the kind is the class name. */
const packages = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'batch/v1': 'kubernetes-models/batch/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'autoscaling/v2': 'kubernetes-models/autoscaling/v2',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'rbac.authorization.k8s.io/v1': 'kubernetes-models/rbac.authorization.k8s.io/v1',
  'keda.sh/v1alpha1': '@kubernetes-models/keda/keda.sh/v1alpha1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
  // The last external-secrets models that support Node 20 stop at v1beta1. External Secrets Operator
  // promoted v1beta1 to v1 (0.16); the ExternalSecret fields the chart renders are the same in both, so a
  // v1 object is checked against the v1beta1 schema.
  'external-secrets.io/v1': '@kubernetes-models/external-secrets/external-secrets.io/v1beta1',
};

/** apiVersion the schema of `packages[apiVersion]` expects, where it is not the object's own. */
const schemaApiVersions = { 'external-secrets.io/v1': 'external-secrets.io/v1beta1' };

async function modelOf(apiVersion, kind) {
  const folder = packages[apiVersion];
  if (!folder || !/^[A-Z][A-Za-z]+$/.test(kind ?? '')) {
    return undefined;
  }
  try {
    const module = await import(`${folder}/${kind}`);
    return module[kind];
  } catch {
    return undefined;
  }
}

function describe(error) {
  const details = error?.details ?? error?.errors;
  if (Array.isArray(details) && details.length > 0) {
    return details.map((detail) => `${detail.instancePath || '/'} ${detail.message}`);
  }
  return [String(error?.message ?? error)];
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) {
    input += chunk;
  }
  const results = [];
  for (const document of parseAllDocuments(input)) {
    if (document.errors.length > 0) {
      results.push({ apiVersion: '?', kind: '?', name: '?', errors: document.errors.map((error) => error.message) });
      continue;
    }
    const object = document.toJS();
    if (object === null || object === undefined) {
      continue;
    }
    const { apiVersion, kind } = object;
    const name = object.metadata?.name ?? '?';
    const Model = await modelOf(apiVersion, kind);
    if (!Model) {
      results.push({ apiVersion, kind, name, errors: [`no schema for ${apiVersion} ${kind}`] });
      continue;
    }
    try {
      const schemaApiVersion = schemaApiVersions[apiVersion];
      new Model(schemaApiVersion ? { ...object, apiVersion: schemaApiVersion } : object).validate();
      results.push({ apiVersion, kind, name, errors: [] });
    } catch (error) {
      results.push({ apiVersion, kind, name, errors: describe(error) });
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
  process.exitCode = results.some((result) => result.errors.length > 0) ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`validate-manifests: ${error?.stack ?? error}\n`);
  process.exitCode = 2;
});
