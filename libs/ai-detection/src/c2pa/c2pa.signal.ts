import { classifySourceType, SourceTypeClass } from '../digital-source-type';
import { Evidence, SignalOutcome } from '../evidence';
import { EVIDENCE_WEIGHTS } from '../weights';
import { C2paReadFailed, C2paReadResult, Manifest, ManifestStore, readManifestStore } from './c2pa-reader';

export type { ManifestStore } from './c2pa-reader';
export { C2PA_READER_SETTINGS } from './c2pa-reader';

/** Status codes that say the signer is not on the trust list: the signature itself is intact. */
const UNTRUSTED_CODES = new Set(['signingCredential.untrusted']);

function claimGenerator(manifest: Manifest): string | null {
  const info = manifest.claim_generator_info?.[0];
  if (info?.name) return info.version ? `${info.name} ${info.version}` : info.name;
  return manifest.claim_generator ?? null;
}

/** Strongest source type declared by the manifest's actions (AI first, then composite, then capture). */
function declaredSourceType(manifest: Manifest): { value: string; kind: SourceTypeClass } | null {
  const found: Array<{ value: string; kind: SourceTypeClass }> = [];
  for (const assertion of manifest.assertions ?? []) {
    if (!assertion.label?.startsWith('c2pa.actions')) continue;
    for (const action of assertion.data?.actions ?? []) {
      if (action.digitalSourceType) found.push({ value: action.digitalSourceType, kind: classifySourceType(action.digitalSourceType) });
    }
  }
  const order: SourceTypeClass[] = ['ai', 'compositeAi', 'capture', 'other'];
  found.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  return found[0] ?? null;
}

/** Evidence from a manifest store already read: a pure function. */
export function c2paEvidence(store: ManifestStore): Evidence[] {
  const manifest = store.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
  if (!manifest) return [];
  const failures = (store.validation_status ?? []).filter((s) => s.code && !UNTRUSTED_CODES.has(s.code) && !s.code.endsWith('.validated') && !s.code.endsWith('.trusted'));
  // Fail closed: trusted only when c2pa-rs itself says so (validation state `Trusted`: the signing certificate chains
  // to an anchor of the configured trust list). A valid signature from anyone else is an unsigned claim.
  const trusted = store.validation_state === 'Trusted' && failures.length === 0;
  const generator = claimGenerator(manifest);
  const source = declaredSourceType(manifest);
  const details = {
    claimGenerator: generator,
    digitalSourceType: source?.value ?? null,
    validationState: store.validation_state ?? null,
    signerTrusted: trusted,
  };
  if (store.validation_state === 'Invalid' || failures.length > 0) {
    return [{
      signal: 'c2pa',
      finding: 'c2pa.invalid',
      description: `A Content Credentials manifest is present but fails validation (${failures.map((f) => f.code).join(', ') || 'invalid'}): the image or the manifest was altered after signing. Its claims are not counted.`,
      direction: 'neutral',
      weight: 0,
      details: { ...details, failures: failures.map((f) => f.code).join(', ') },
    }];
  }
  const kind = source?.kind ?? 'other';
  const weights: Record<SourceTypeClass, number> = trusted
    ? { ai: EVIDENCE_WEIGHTS.c2paAiSource, compositeAi: EVIDENCE_WEIGHTS.c2paCompositeAi, capture: EVIDENCE_WEIGHTS.c2paCapture, other: 0 }
    // Anyone can sign with a self-made certificate: an unknown signer's claim weighs as much as unsigned metadata.
    : { ai: EVIDENCE_WEIGHTS.declaredAi, compositeAi: EVIDENCE_WEIGHTS.declaredAi, capture: EVIDENCE_WEIGHTS.declaredCapture, other: 0 };
  const weight = weights[kind];
  const signer = trusted ? 'signature valid, signer on the trust list' : 'signature valid, signer on no configured trust list';
  return [{
    signal: 'c2pa',
    finding: `c2pa.${kind === 'other' ? 'noSourceType' : kind}`,
    description: source
      ? `Content Credentials (${signer}) declare the source type "${source.value.slice(source.value.lastIndexOf('/') + 1)}"${generator ? `, made by ${generator}` : ''}.`
      : `Content Credentials (${signer})${generator ? ` by ${generator}` : ''} declare no source type.`,
    direction: weight > 0 ? 'ai' : weight < 0 ? 'real' : 'neutral',
    weight,
    details,
  }];
}

function unreadable(error: string): SignalOutcome {
  return {
    evidence: [{
      signal: 'c2pa',
      finding: 'c2pa.unreadable',
      description: 'A Content Credentials manifest could not be read (damaged or unsupported); it is not counted.',
      direction: 'neutral',
      weight: 0,
      details: { error: error.slice(0, 200) },
    }],
  };
}

const READ_FAILURES: Record<C2paReadFailed['reason'], string> = {
  deadline: 'reading the manifest took longer than allowed',
  memory: 'reading the manifest needed more memory than allowed',
  crashed: 'the manifest reader stopped',
};

/**
 * Reads and validates the C2PA manifest store of an image (in the reader process, see c2pa-reader.ts); no manifest
 * gives no evidence. A reader that overran its deadline or memory, or died, gives "could not be read" evidence:
 * the rest of the detection goes on.
 */
export async function readC2pa(bytes: Uint8Array, mimeType: string): Promise<SignalOutcome> {
  let result: C2paReadResult;
  try {
    result = await readManifestStore(bytes, mimeType);
  } catch (error) {
    if (error instanceof C2paReadFailed) return unreadable(READ_FAILURES[error.reason]);
    throw error;
  }
  if (!result.ok) {
    const message = `${result.error.name}: ${result.error.message}`;
    if (/RemoteManifest/i.test(message)) {
      // The file only points at a manifest elsewhere. It is not fetched (see C2PA_READER_SETTINGS), and the URL, the
      // file author's text, is not repeated back.
      return {
        evidence: [{
          signal: 'c2pa',
          finding: 'c2pa.remoteManifest',
          description: 'The file names a Content Credentials manifest stored elsewhere; remote manifests are not fetched, so it is not counted.',
          direction: 'neutral',
          weight: 0,
          details: {},
        }],
      };
    }
    if (/JumbfNotFound|NotFound|not found/i.test(message)) return { evidence: [] };
    return unreadable(result.error.message);
  }
  return { evidence: c2paEvidence(result.store) };
}
