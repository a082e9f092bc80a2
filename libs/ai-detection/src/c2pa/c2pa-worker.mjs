// C2PA manifest reader for @cp/ai-detection, run in a child process (or a worker thread) by @cp/bounded-worker.
// c2pa-rs's WebAssembly build (@contentauth/c2pa-wasm, an ES module) is compiled once per worker.
// Protocol: { id, mimeType: string, bytes: Uint8Array, settings: string (c2pa context JSON, with the trust lists) }
//        -> { id, ok: true, store: { active_manifest, validation_state, validation_status, manifests: { <active>: ... },
//             chain: [steps from the active manifest through its ingredients], chain_omitted?: manifests it leaves out } }
//           (only what the signal reads: a manifest can be as large as the image, the service's thread parses none of it)
//         | { id, ok: false, error: { name, message }, retire?: true (after a WebAssembly trap) }
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
// the same relative place in the sources and in dist/ (tools/build.mjs copies every .mjs)
import { workerPort } from '../../../bounded-worker/src/worker-port.mjs';

const port = workerPort();

// Nothing in this worker may reach the network, whatever a file names and whatever the settings say: c2pa-rs
// fetches remote manifests and OCSP answers through the global fetch.
const refuse = () => Promise.reject(new TypeError('network access is disabled in the C2PA reader'));
globalThis.fetch = refuse;

const require = createRequire(import.meta.url);
let c2paPromise = null;
function c2pa() {
  c2paPromise ??= import('@contentauth/c2pa-wasm').then((lib) => {
    // The WebAssembly module ships inside the package; nothing is fetched.
    lib.initSync({ module: readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
    return lib;
  });
  return c2paPromise;
}

const TEXT = 500;
const LIST = 200;
const text = (value) => (typeof value === 'string' ? value.slice(0, TEXT) : undefined);

const actionsOf = (manifest) =>
  (Array.isArray(manifest?.assertions) ? manifest.assertions : [])
    .filter((assertion) => typeof assertion?.label === 'string' && assertion.label.startsWith('c2pa.actions'))
    .slice(0, LIST)
    .map((assertion) => ({
      label: text(assertion.label),
      data: {
        actions: (Array.isArray(assertion.data?.actions) ? assertion.data.actions : [])
          .slice(0, LIST)
          .map((action) => ({ action: text(action?.action), digitalSourceType: text(action?.digitalSourceType) })),
      },
    }));

const generatorOf = (manifest) => {
  const info = Array.isArray(manifest?.claim_generator_info) ? manifest.claim_generator_info[0] : undefined;
  if (typeof info?.name === 'string') return text(typeof info.version === 'string' ? `${info.name} ${info.version}` : info.name);
  return text(manifest?.claim_generator) ?? null;
};

const codes = (results, kind) => (Array.isArray(results?.[kind]) ? results[kind] : []).map((status) => status?.code).filter((code) => typeof code === 'string');

/** Trust of a signer from c2pa-rs's status codes: true only when it says `trusted` with no failure (fail closed). */
function trustOf(results) {
  if (!results) return false;
  return codes(results, 'success').includes('signingCredential.trusted') && codes(results, 'failure').length === 0;
}

function timeStampOf(results) {
  const all = [...codes(results, 'success'), ...codes(results, 'informational'), ...codes(results, 'failure')];
  if (all.includes('timeStamp.trusted')) return true;
  if (all.some((code) => code.startsWith('timeStamp.'))) return false;
  return null;
}

const MAX_STEPS = 32;
const MAX_DEPTH = 8;
const MAX_ACTIONS = 20;

const ingredientsOf = (manifest) => (Array.isArray(manifest?.ingredients) ? manifest.ingredients : []).slice(0, LIST);

/** How many distinct manifests the active one reaches through its ingredients (what the chain would list without limits). */
function reachable(store, manifests) {
  const seen = new Set();
  const pending = [store.active_manifest];
  while (pending.length > 0) {
    const label = pending.pop();
    if (typeof label !== 'string' || seen.has(label) || !Object.hasOwn(manifests, label)) continue;
    seen.add(label);
    for (const ingredient of ingredientsOf(manifests[label])) pending.push(ingredient?.active_manifest);
  }
  return seen.size;
}

/**
 * The provenance chain: the active manifest, then the manifests of its ingredients (parents first), depth-first,
 * each with its signer, time stamp, claim generator, actions and declared source type. Ingredient trust comes from
 * this read's ingredient deltas (what c2pa-rs found now), not from what the signer recorded when signing.
 */
function chainOf(store) {
  const manifests = store.manifests && typeof store.manifests === 'object' ? store.manifests : {};
  const deltas = Array.isArray(store.validation_results?.ingredientDeltas) ? store.validation_results.ingredientDeltas : [];
  const steps = [];
  const seen = new Set();
  const visit = (label, depth, relationship, title, results) => {
    if (steps.length >= MAX_STEPS || depth > MAX_DEPTH || typeof label !== 'string' || seen.has(label)) return;
    seen.add(label);
    // own keys only: a label such as `constructor` names no manifest
    const manifest = Object.hasOwn(manifests, label) ? manifests[label] : undefined;
    if (!manifest) return;
    const actions = actionsOf(manifest).flatMap((assertion) => assertion.data.actions);
    const source = actions.find((action) => action.digitalSourceType)?.digitalSourceType ?? null;
    const names = actions.map((action) => action.action).filter(Boolean);
    steps.push({
      label: text(label),
      depth,
      relationship,
      title: text(title ?? manifest.title) ?? null,
      signer: text(manifest.signature_info?.common_name ?? manifest.signature_info?.issuer) ?? null,
      issuer: text(manifest.signature_info?.issuer) ?? null,
      signedAt: text(manifest.signature_info?.time) ?? null,
      signerTrusted: depth === 0 ? store.validation_state === 'Trusted' : trustOf(results),
      timeStampTrusted: depth === 0 ? timeStampOf(store.validation_results?.activeManifest) : timeStampOf(results),
      claimGenerator: generatorOf(manifest),
      actions: names.slice(0, MAX_ACTIONS),
      // what the list leaves out is counted, never dropped silently
      ...(names.length > MAX_ACTIONS ? { omittedActions: names.length - MAX_ACTIONS } : {}),
      digitalSourceType: source,
    });
    for (const ingredient of ingredientsOf(manifest)) {
      const uriEnd = `/${label}/c2pa.assertions/${ingredient?.label}`;
      const delta = deltas.find((entry) => typeof entry?.ingredientAssertionURI === 'string' && entry.ingredientAssertionURI.endsWith(uriEnd));
      visit(ingredient?.active_manifest, depth + 1, text(ingredient?.relationship) ?? 'componentOf', ingredient?.title, delta?.validationDeltas);
    }
  };
  visit(store.active_manifest, 0, 'active', undefined, undefined);
  return { steps, omitted: Math.max(0, reachable(store, manifests) - steps.length) };
}

/** The active manifest's claim generator and actions, the chain, and the validation results; nothing else leaves the worker. */
function essentials(store) {
  const active = typeof store.active_manifest === 'string' ? store.active_manifest : undefined;
  const manifest = active ? store.manifests?.[active] : undefined;
  const chain = chainOf(store);
  return {
    active_manifest: active,
    validation_state: text(store.validation_state),
    validation_status: (Array.isArray(store.validation_status) ? store.validation_status : [])
      .slice(0, LIST)
      .map((status) => ({ code: text(status?.code), explanation: text(status?.explanation) })),
    manifests: manifest
      ? {
          [active]: {
            claim_generator: text(manifest.claim_generator),
            claim_generator_info: (Array.isArray(manifest.claim_generator_info) ? manifest.claim_generator_info : [])
              .slice(0, 1)
              .map((info) => ({ name: text(info?.name), version: text(info?.version) })),
            assertions: actionsOf(manifest),
          },
        }
      : {},
    chain: chain.steps,
    ...(chain.omitted > 0 ? { chain_omitted: chain.omitted } : {}),
  };
}

async function read(msg) {
  const { WasmReader } = await c2pa();
  const bytes = Buffer.isBuffer(msg.bytes) ? new Uint8Array(msg.bytes.buffer, msg.bytes.byteOffset, msg.bytes.byteLength) : msg.bytes;
  const reader = await WasmReader.fromBytes(msg.mimeType, bytes, msg.settings);
  try {
    return essentials(JSON.parse(reader.json()));
  } finally {
    reader.free();
  }
}

port.onMessage(async (msg) => {
  try {
    port.post({ id: msg.id, ok: true, store: await read(msg) });
  } catch (err) {
    const e = err ?? {};
    // after a trap (a Rust panic or an allocation failure) the instance's state is not to be trusted
    const trapped = err instanceof WebAssembly.RuntimeError;
    const error = { name: String(e.name ?? 'Error').slice(0, TEXT), message: String(e.message ?? e).slice(0, 2000) };
    port.post({ id: msg.id, ok: false, error, ...(trapped ? { retire: true } : {}) });
  }
});
