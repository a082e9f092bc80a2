// C2PA manifest reader for @cp/ai-detection, run in a child process (or a worker thread) by @cp/bounded-worker.
// c2pa-rs's WebAssembly build (@contentauth/c2pa-wasm, an ES module) is compiled once per worker.
// Protocol: { id, mimeType: string, bytes: Uint8Array, settings: string (c2pa context JSON) }
//        -> { id, ok: true, store: { active_manifest, validation_state, validation_status, manifests: { <active>: ... } } }
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

/** The active manifest's claim generator and actions, and the validation results; nothing else leaves the worker. */
function essentials(store) {
  const active = typeof store.active_manifest === 'string' ? store.active_manifest : undefined;
  const manifest = active ? store.manifests?.[active] : undefined;
  const assertions = (Array.isArray(manifest?.assertions) ? manifest.assertions : [])
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
            assertions,
          },
        }
      : {},
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
