import { ContentCredentialsSigner, generateDevelopmentCredentials, loadSigningCredentials } from '@cp/anti-ai';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { configureC2paTrust } from './c2pa-reader';
import { tamperedAfterSigning, withContentCredentials } from '../../testing';
import { EVIDENCE_WEIGHTS, UNSIGNED_CLAIM } from '../weights';
import { c2paEvidence, ManifestStore, readC2pa } from './c2pa.signal';

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

function store(sourceType: string | null, status: Array<{ code: string }> = [], state = 'Valid'): ManifestStore {
  return {
    active_manifest: 'urn:c2pa:1',
    validation_state: state,
    validation_status: status,
    manifests: {
      'urn:c2pa:1': {
        claim_generator_info: [{ name: 'Example Generator', version: '2.1' }],
        assertions: [{ label: 'c2pa.actions.v2', data: { actions: [{ action: 'c2pa.created', ...(sourceType ? { digitalSourceType: IPTC + sourceType } : {}) }] } }],
      },
    },
  };
}

describe('Content Credentials signal on really signed images (c2pa-rs, a development signer nobody trusts)', () => {
  const photo = () => sharp({ create: { width: 96, height: 64, channels: 3, background: '#5a7d9a' } }).png().toBuffer();

  it('a signed AI source type from an unknown signer is an unsigned claim (fail closed), with the claim generator', async () => {
    const signed = await withContentCredentials(await photo(), 'trainedAlgorithmicMedia', 'Example Image Generator');
    const [evidence] = (await readC2pa(signed, 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.ai', direction: 'ai', details: { claimGenerator: 'Example Image Generator 1', signerTrusted: false } });
    expect(evidence.weight).toBe(UNSIGNED_CLAIM);
    expect(evidence.description).toContain('signer on no configured trust list');
  });

  it('a signed capture claim by an untrusted signer lowers the probability only as much as declared metadata', async () => {
    const [evidence] = (await readC2pa(await withContentCredentials(await photo(), 'digitalCapture', 'Example Camera'), 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.capture', direction: 'real' });
    expect(evidence.weight).toBe(c2paEvidence(store('digitalCapture', [{ code: 'signingCredential.untrusted' }]))[0].weight);
  });

  it('pixels changed after signing: the manifest fails validation and its claim is not counted', async () => {
    const signed = await withContentCredentials(await photo(), 'trainedAlgorithmicMedia');
    const [evidence] = (await readC2pa(await tamperedAfterSigning(signed), 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.invalid', weight: 0 });
    expect(String(evidence.details.failures)).toContain('assertion.dataHash.mismatch');
  });
});

describe('Content Credentials checked against trust lists (a second signer with its own certificate chain)', () => {
  const photo = () => sharp({ create: { width: 96, height: 64, channels: 3, background: '#6b8e23' } }).png().toBuffer();
  const AI = `${IPTC}trainedAlgorithmicMedia`;
  let dir: string;
  let generator: ContentCredentialsSigner;
  let editor: ContentCredentialsSigner;
  let generatorRoot: string;
  let editorRoot: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'c2pa-trust-'));
    const generatorCredentials = await generateDevelopmentCredentials('Second Generator Inc. signer');
    const editorCredentials = await generateDevelopmentCredentials('Photo Editor signer');
    generator = new ContentCredentialsSigner(loadSigningCredentials(generatorCredentials));
    editor = new ContentCredentialsSigner(loadSigningCredentials(editorCredentials));
    generatorRoot = generatorCredentials.trustAnchorPem ?? '';
    editorRoot = editorCredentials.trustAnchorPem ?? '';
  });

  afterAll(async () => {
    configureC2paTrust();
    await rm(dir, { recursive: true, force: true });
  });

  /** A trust list made of the given roots (what an operator configures instead of the shipped snapshot). */
  async function trustOnly(...roots: string[]): Promise<void> {
    const file = join(dir, `list-${roots.length}.pem`);
    await writeFile(file, roots.join('\n'));
    configureC2paTrust({ trustListPath: file, interim: false });
  }

  const generated = async (): Promise<Buffer> =>
    generator.sign(await photo(), 'png', { title: 'generated.png', claimGenerator: 'Second Generator', origin: 'created', actions: [{ action: 'c2pa.created', digitalSourceType: AI }] });

  it('with the shipped C2PA lists, an unknown signer is reported as such and weighs as an unsigned claim', async () => {
    configureC2paTrust();
    const [evidence] = (await readC2pa(await generated(), 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.ai', weight: UNSIGNED_CLAIM, details: { signerTrusted: false, interimListTrusted: false, signer: 'Second Generator Inc. signer' } });
    expect(evidence.description).toContain('signer on no configured trust list');
  });

  it('a signer under a configured anchor is trusted by c2pa-rs and its AI claim can decide', async () => {
    await trustOnly(generatorRoot);
    const [evidence] = (await readC2pa(await generated(), 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.ai', weight: EVIDENCE_WEIGHTS.c2paAiSource, details: { signerTrusted: true, validationState: 'Trusted' } });
    expect(evidence.provenance).toEqual([expect.objectContaining({ depth: 0, relationship: 'active', signer: 'Second Generator Inc. signer', signerTrusted: true, actions: ['c2pa.created'], digitalSourceType: AI, claimGenerator: 'Second Generator 1' })]);
  });

  it('walks the ingredients: an AI-generated parent edited by another signer shows the whole chain', async () => {
    const edited = await editor.sign(await generated(), 'png', { title: 'edited.png', claimGenerator: 'Photo Editor', actions: [{ action: 'c2pa.color_adjustments' }] });
    await trustOnly(generatorRoot);
    const [untrustedEditor] = (await readC2pa(edited, 'image/png')).evidence;
    expect(untrustedEditor.provenance?.map((step) => [step.relationship, step.signer, step.signerTrusted])).toEqual([
      ['active', 'Photo Editor signer', false],
      ['parentOf', 'Second Generator Inc. signer', true],
    ]);
    // The editor is unknown: it vouches for nothing, so the AI parent counts as an unsigned claim only.
    expect(untrustedEditor).toMatchObject({ finding: 'c2pa.ai', weight: UNSIGNED_CLAIM, details: { sourceDeclaredBy: 'parentOf', ingredients: 1 } });
    expect(untrustedEditor.description).toContain('Provenance: this file: Photo Editor signer (not on the trust lists)');
    await trustOnly(generatorRoot, editorRoot);
    const [trustedChain] = (await readC2pa(edited, 'image/png')).evidence;
    expect(trustedChain).toMatchObject({ finding: 'c2pa.ai', weight: EVIDENCE_WEIGHTS.c2paAiSource, details: { sourceDeclaredBy: 'parentOf', claimTrusted: true } });
    expect(trustedChain.provenance?.[1].actions).toEqual(['c2pa.created']);
  });
});

describe('Content Credentials signal', () => {
  it('reads no evidence from an image without a manifest', async () => {
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#777' } }).jpeg().toBuffer();
    expect((await readC2pa(jpeg, 'image/jpeg')).evidence).toEqual([]);
  });

  it('counts an AI source type signed by a trusted signer as strong evidence for AI, with the claim generator', () => {
    const [evidence] = c2paEvidence(store('trainedAlgorithmicMedia', [{ code: 'signingCredential.trusted' }], 'Trusted'));
    expect(evidence.finding).toBe('c2pa.ai');
    expect(evidence.weight).toBe(EVIDENCE_WEIGHTS.c2paAiSource);
    expect(evidence.details.claimGenerator).toBe('Example Generator 2.1');
    expect(evidence.details.signerTrusted).toBe(true);
  });

  it('is trusted only when c2pa-rs says Trusted: a valid signature without it, or with untrusted, is an unsigned claim', () => {
    for (const unknown of [store('trainedAlgorithmicMedia', [], 'Valid'), store('trainedAlgorithmicMedia', [{ code: 'signingCredential.untrusted' }]), store('trainedAlgorithmicMedia', [])]) {
      const [evidence] = c2paEvidence(unknown);
      expect(evidence).toMatchObject({ weight: UNSIGNED_CLAIM, details: { signerTrusted: false } });
    }
    expect(c2paEvidence({ ...store('trainedAlgorithmicMedia'), validation_state: undefined })[0].details.signerTrusted).toBe(false);
  });

  it('weighs claims of AI and of capture symmetrically, trusted or not', () => {
    const [trustedCapture] = c2paEvidence(store('digitalCapture', [], 'Trusted'));
    const [trustedAi] = c2paEvidence(store('trainedAlgorithmicMedia', [], 'Trusted'));
    const [untrustedCapture] = c2paEvidence(store('digitalCapture', [{ code: 'signingCredential.untrusted' }]));
    const [untrustedAi] = c2paEvidence(store('trainedAlgorithmicMedia', [{ code: 'signingCredential.untrusted' }]));
    expect(trustedCapture).toMatchObject({ direction: 'real', weight: -trustedAi.weight });
    expect(untrustedCapture).toMatchObject({ direction: 'real', weight: -untrustedAi.weight });
  });

  it('reports a manifest that fails validation and does not count its claims', () => {
    const [evidence] = c2paEvidence(store('trainedAlgorithmicMedia', [{ code: 'assertion.dataHash.mismatch' }], 'Invalid'));
    expect(evidence.finding).toBe('c2pa.invalid');
    expect(evidence.weight).toBe(0);
    expect(evidence.description).toContain('assertion.dataHash.mismatch');
  });
});

describe('remote manifests named inside a file are never fetched', () => {
  it('a JPEG whose XMP names a dcterms:provenance URL on this machine makes no connection, and says nothing of it', async () => {
    const seen: string[] = [];
    const listener = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/c2pa' }).end(Buffer.alloc(64));
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const { port } = listener.address() as { port: number };
    try {
      const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dcterms="http://purl.org/dc/terms/" dcterms:provenance="http://127.0.0.1:${port}/remote-manifest.c2pa"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
      const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } }).withXmp(xmp).jpeg().toBuffer();
      expect(jpeg.includes(Buffer.from(`127.0.0.1:${port}`))).toBe(true);
      const outcome = await readC2pa(jpeg, 'image/jpeg');
      // Give a fetch that was started time to arrive before looking.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual([]);
      expect(JSON.stringify(outcome)).not.toContain(`127.0.0.1:${port}`);
      expect(outcome.evidence.every((evidence) => evidence.weight === 0)).toBe(true);
    } finally {
      listener.close();
    }
  });
});
