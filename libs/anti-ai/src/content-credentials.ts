import type { WasmBuilder as WasmBuilderType, WasmReader as WasmReaderType } from '@contentauth/c2pa-wasm';
import { Encoder, Tag } from 'cbor-x';
import { sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LoadedSigningCredentials } from './signing-credentials';
import { AntiAiFormat, CONTENT_TYPES } from './types';

/** CAWG training-and-data-mining assertion: every use refused. */
export const CAWG_TRAINING_MINING_LABEL = 'cawg.training-mining';
export const CAWG_ENTRIES = ['cawg.ai_generative_training', 'cawg.ai_training', 'cawg.ai_inference', 'cawg.data_mining'] as const;

/** Room reserved in the manifest for the COSE signature (certificate chain + signature + padding). */
const SIGNATURE_RESERVE = 16 * 1024;

const COSE_ALGORITHMS = {
  es256: { id: -7, hash: 'sha256' },
  es384: { id: -35, hash: 'sha384' },
  ed25519: { id: -8, hash: null },
} as const;
const COSE_HEADER_ALG = 1;
const COSE_HEADER_X5CHAIN = 33;
const COSE_SIGN1_TAG = 18;

type C2paModule = typeof import('@contentauth/c2pa-wasm');
let c2paModule: C2paModule | undefined;

/**
 * The c2pa-rs WebAssembly build (`@contentauth/c2pa-wasm`), compiled once per process. The builder reads
 * the asset through the browser's `FileReaderSync`; Node has none, so a minimal one is installed that
 * reads only the in-memory blobs this module hands over.
 */
function c2pa(): C2paModule {
  if (!c2paModule) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an ES module loaded by require(esm) (Node ≥ 20.19)
    const loaded = require('@contentauth/c2pa-wasm') as C2paModule;
    loaded.initSync({ module: readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
    const scope = globalThis as { FileReaderSync?: unknown };
    scope.FileReaderSync ??= MemoryFileReaderSync;
    c2paModule = loaded;
  }
  return c2paModule;
}

class MemoryBlob extends Blob {
  constructor(readonly content: Uint8Array<ArrayBuffer>) {
    super([content]);
  }

  override slice(start?: number, end?: number): MemoryBlob {
    return new MemoryBlob(this.content.subarray(start ?? 0, end ?? this.content.length));
  }
}

class MemoryFileReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    if (!(blob instanceof MemoryBlob)) {
      throw new TypeError('only in-memory blobs can be read synchronously here');
    }
    return new Uint8Array(blob.content).buffer;
  }
}

const cbor = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false, variableMapSize: true });

/**
 * c2pa-wasm hands the claim to the signer and expects the whole COSE_Sign1 back ("direct COSE
 * handling"): protected header {alg, x5chain}, detached payload, signature over the Sig_structure, and
 * an unprotected `pad` that makes it exactly the reserved size.
 */
function coseSigner(credentials: LoadedSigningCredentials): {
  sign: (claim: Uint8Array<ArrayBuffer>) => Promise<Uint8Array<ArrayBuffer>>;
  reserveSize: number;
  alg: string;
} {
  const algorithm = COSE_ALGORITHMS[credentials.algorithm];
  const chain = credentials.chainDer.length === 1 ? credentials.chainDer[0] : credentials.chainDer;
  const protectedHeader = cbor.encode(
    new Map<number, unknown>([
      [COSE_HEADER_ALG, algorithm.id],
      [COSE_HEADER_X5CHAIN, chain],
    ]),
  );
  return {
    alg: credentials.algorithm,
    reserveSize: SIGNATURE_RESERVE,
    sign: (claim) => {
      const toBeSigned = cbor.encode(['Signature1', protectedHeader, Buffer.alloc(0), Buffer.from(claim)]);
      const signature = cryptoSign(algorithm.hash, toBeSigned, { key: credentials.privateKey, dsaEncoding: 'ieee-p1363' });
      const encode = (padding: number): Buffer =>
        cbor.encode(new Tag([protectedHeader, new Map([['pad', Buffer.alloc(padding)]]), null, signature], COSE_SIGN1_TAG));
      let padding = SIGNATURE_RESERVE - encode(0).length;
      // The length prefix of the padding grows at 24, 256 and 65536 bytes: a few corrections at most.
      for (let attempt = 0; attempt < 4 && padding >= 0; attempt++) {
        const encoded = encode(padding);
        if (encoded.length === SIGNATURE_RESERVE) {
          return Promise.resolve(new Uint8Array(encoded));
        }
        padding -= encoded.length - SIGNATURE_RESERVE;
      }
      return Promise.reject(new Error('the certificate chain does not fit the reserved C2PA signature size'));
    },
  };
}

/** Settings of the c2pa SDK: nothing fetched from the network; the configured root trusted. */
function contextJson(trustAnchorPem?: string): string {
  return JSON.stringify({
    ...(trustAnchorPem ? { trust: { user_anchors: trustAnchorPem } } : {}),
    verify: { ocsp_fetch: false, remote_manifest_fetch: false },
  });
}

export interface ManifestRequest {
  title: string;
  /** The claim generator's name (this service's by default). */
  claimGenerator?: string;
  /**
   * `opened` (default): the input is the parent ingredient of an edit (`c2pa.opened` first). `created`: the asset
   * is new (a generator's or camera's claim; `actions` then start with `c2pa.created`, and there is no parent).
   */
  origin?: 'opened' | 'created';
  /**
   * Actions this service performed on the asset. The watermark is recorded as `c2pa.edited` with a
   * description: `c2pa.watermarked` requires a soft-binding assertion of a C2PA-registered algorithm,
   * which this engine is not.
   */
  actions: Array<{ action: string; description?: string; digitalSourceType?: string }>;
}

/**
 * Signs a C2PA manifest into the asset (JPEG APP11, PNG caBX chunk, WebP C2PA chunk, TIFF tag):
 * the asset's pixels are untouched. The original becomes the parent ingredient (`c2pa.opened`).
 */
export class ContentCredentialsSigner {
  constructor(private readonly credentials: LoadedSigningCredentials) {}

  async sign(input: Buffer, format: AntiAiFormat, request: ManifestRequest): Promise<Buffer> {
    const { WasmBuilder } = c2pa();
    const mime = CONTENT_TYPES[format];
    const created = request.origin === 'created';
    const definition = {
      claim_generator_info: [{ name: request.claimGenerator ?? 'content-protection anti-ai', version: '1' }],
      title: request.title,
      format: mime,
      assertions: [
        {
          label: 'c2pa.actions.v2',
          data: { actions: [...(created ? [] : [{ action: 'c2pa.opened', parameters: { ingredientIds: ['original'] } }]), ...request.actions] },
        },
        {
          label: CAWG_TRAINING_MINING_LABEL,
          data: { entries: Object.fromEntries(CAWG_ENTRIES.map((entry) => [entry, { use: 'notAllowed' }])) },
        },
      ],
    };
    const builder: WasmBuilderType = WasmBuilder.fromJson(JSON.stringify(definition), contextJson(this.credentials.trustAnchorPem));
    try {
      const asset = new MemoryBlob(new Uint8Array(input));
      if (!created) {
        await builder.addIngredientFromBlob(JSON.stringify({ title: request.title, relationship: 'parentOf', label: 'original' }), mime, asset);
      }
      const signed = await builder.sign(coseSigner(this.credentials), [], mime, asset);
      return Buffer.from(signed);
    } finally {
      builder.free();
    }
  }
}

export interface ContentCredentialsReport {
  /** c2pa-rs's verdict: `Trusted` (valid, signer under a trusted root), `Valid` or `Invalid`. */
  validationState: string;
  failures: string[];
  signerCommonName?: string;
  /** CAWG training-and-data-mining entries of the active manifest. */
  trainingMining: Record<string, string>;
  actions: string[];
}

/** Reads and validates the manifest store of an asset with c2pa-rs's reader. Throws when there is none. */
export async function readContentCredentials(asset: Buffer, format: AntiAiFormat, trustAnchorPem?: string): Promise<ContentCredentialsReport> {
  const { WasmReader } = c2pa();
  const reader: WasmReaderType = await WasmReader.fromBytes(CONTENT_TYPES[format], new Uint8Array(asset), contextJson(trustAnchorPem));
  try {
    const store = JSON.parse(reader.json()) as {
      validation_state?: string;
      validation_results?: { activeManifest?: { failure?: Array<{ code: string }> } };
    };
    const manifest = reader.activeManifest() as {
      signature_info?: { common_name?: string };
      assertions?: Array<{ label: string; data: unknown }>;
    };
    const assertion = (label: string): unknown => manifest.assertions?.find((entry) => entry.label === label)?.data;
    const training = assertion(CAWG_TRAINING_MINING_LABEL) as { entries?: Record<string, { use?: string }> } | undefined;
    const actions = assertion('c2pa.actions.v2') as { actions?: Array<{ action: string }> } | undefined;
    return {
      validationState: store.validation_state ?? 'Unknown',
      failures: (store.validation_results?.activeManifest?.failure ?? []).map((status) => status.code),
      signerCommonName: manifest.signature_info?.common_name,
      trainingMining: Object.fromEntries(Object.entries(training?.entries ?? {}).map(([entry, value]) => [entry, value.use ?? ''])),
      actions: (actions?.actions ?? []).map((entry) => entry.action),
    };
  } finally {
    reader.free();
  }
}
