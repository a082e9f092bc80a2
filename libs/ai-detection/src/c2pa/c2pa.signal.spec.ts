import { ContentCredentialsSigner, generateDevelopmentCredentials, loadSigningCredentials } from '@cp/anti-ai';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { configureC2paTrust } from './c2pa-reader';
import { tamperedAfterSigning, withContentCredentials } from '../../testing';
import { C2PA_EVIDENCE_MAX_BYTES, serializedBytes, SHORTENED_NOTE } from '../evidence-budget';
import { EVIDENCE_WEIGHTS, UNSIGNED_CLAIM } from '../weights';
import { ChainStep } from './c2pa-reader';
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
    expect(evidence.description).toContain('altered after signing');
  });

  // A credential that expired (our own anti-AI manifests carry no time stamp: valid only while their certificate is),
  // was revoked or uses an unsupported algorithm fails validation with the image untouched: saying "altered after
  // signing" there accused the file of a change nobody measured.
  it.each(['signingCredential.expired', 'signingCredential.revoked', 'algorithm.unsupported'])('says only what %s shows: the signature cannot be validated, not that the image was altered', (code) => {
    const [evidence] = c2paEvidence(store('trainedAlgorithmicMedia', [{ code }], 'Invalid'));
    expect(evidence).toMatchObject({ finding: 'c2pa.invalid', weight: 0 });
    expect(evidence.description).toContain(code);
    expect(evidence.description).not.toMatch(/was altered/);
    expect(evidence.description).toMatch(/does not show that the image or the manifest was changed/);
  });
});

describe('size limit of the C2PA finding (a manifest written to be as large as the reader lets through)', () => {
  const AI = `${IPTC}trainedAlgorithmicMedia`;
  /** 500 characters (the reader's limit per text) of CJK text: 1,500 bytes of JSON each. */
  const cjk = (seed: number): string => `${seed}:${'生成画像証明書署名者'.repeat(50)}`.slice(0, 500);

  /** The reader's maxima: 32 manifests of 20 listed actions (and more omitted), every text at its 500-character limit. */
  function hostileChain(text: (seed: number) => string): ChainStep[] {
    return Array.from({ length: 32 }, (_, index): ChainStep => ({
      label: text(index),
      depth: Math.min(index, 8),
      relationship: index === 0 ? 'active' : 'parentOf',
      title: text(index + 100),
      signer: text(index + 200),
      issuer: text(index + 300),
      signedAt: text(index + 400),
      signerTrusted: true,
      timeStampTrusted: null,
      claimGenerator: text(index + 500),
      actions: Array.from({ length: 20 }, (_unused, action) => text(index * 100 + action)),
      omittedActions: 180,
      digitalSourceType: index === 0 ? AI : text(index + 600),
    }));
  }

  function hostileStore(text: (seed: number) => string, state = 'Trusted', codes: string[] = []): ManifestStore {
    return {
      active_manifest: 'urn:c2pa:active',
      validation_state: state,
      validation_status: codes.map((code) => ({ code, explanation: text(7) })),
      manifests: {
        'urn:c2pa:active': {
          claim_generator: text(1),
          claim_generator_info: [{ name: text(2), version: text(3) }],
          assertions: [{ label: 'c2pa.actions.v2', data: { actions: [{ action: 'c2pa.created', digitalSourceType: AI }] } }],
        },
      },
      chain: hostileChain(text),
      chain_omitted: 40,
    };
  }

  it('CJK texts at every limit: the finding stays under its share of the budget, says it was shortened, and weighs the same', () => {
    // An ordinary chain is left whole and unmarked.
    const ordinary = hostileChain((seed) => `s${seed}`).slice(0, 3).map((step) => ({ ...step, actions: step.actions.slice(0, 2), omittedActions: undefined }));
    const [whole] = c2paEvidence({ ...store('trainedAlgorithmicMedia', [], 'Trusted'), chain: ordinary });
    expect(whole.provenance).toEqual(ordinary.map((step) => ({ ...step })));
    expect(whole.details).not.toHaveProperty('shortened');
    expect(whole.details).not.toHaveProperty('omittedManifests');
    expect(whole.description).not.toContain(SHORTENED_NOTE);

    const hostile = hostileStore(cjk);
    expect(serializedBytes(hostile.chain)).toBeGreaterThan(10 * C2PA_EVIDENCE_MAX_BYTES);
    const [evidence] = c2paEvidence(hostile);
    expect(serializedBytes([evidence])).toBeLessThanOrEqual(C2PA_EVIDENCE_MAX_BYTES);
    // The fusion sees what an ordinary trusted AI manifest gives.
    expect(evidence).toMatchObject({ signal: 'c2pa', finding: 'c2pa.ai', direction: 'ai', weight: EVIDENCE_WEIGHTS.c2paAiSource, details: { claimTrusted: true, shortened: true } });
    expect(evidence.description).toContain(SHORTENED_NOTE);
    // Nothing cut silently: every manifest not listed is counted, and so is every action not listed.
    const listed = evidence.provenance ?? [];
    expect(listed.length).toBeLessThan(32);
    expect(evidence.details.omittedManifests).toBe(40 + 32 - listed.length);
    for (const step of listed) {
      expect(step.actions.length).toBeLessThanOrEqual(3);
      expect(step.omittedActions).toBe(200 - step.actions.length);
    }
  });

  it('shorter texts: as many manifests as fit are listed, the file\'s own first, three actions each', () => {
    const ascii = (seed: number): string => `signer-${seed}-${'x'.repeat(40)}`;
    const store = hostileStore(ascii);
    const [evidence] = c2paEvidence(store);
    expect(serializedBytes([evidence])).toBeLessThanOrEqual(C2PA_EVIDENCE_MAX_BYTES);
    const listed = evidence.provenance ?? [];
    expect(listed.length).toBeGreaterThan(1);
    expect(listed.length).toBeLessThan(32);
    // A prefix of the chain, texts whole, three actions each, the rest counted.
    expect(listed.map((step) => step.label)).toEqual(store.chain?.slice(0, listed.length).map((step) => step.label));
    expect(listed.every((step) => step.actions.length === 3 && step.omittedActions === 197 && step.signer === ascii(listed.indexOf(step) + 200))).toBe(true);
    expect(evidence.details).toMatchObject({ shortened: true, omittedManifests: 40 + 32 - listed.length, ingredients: 31 });
    expect(evidence.description).toContain(`${SHORTENED_NOTE}: ${listed.length} of the chain's 72 manifests listed, at most 3 actions each.`);
    expect(evidence.description).toContain(`; ${40 + 32 - listed.length} more manifests not listed.`);
  });

  it('an invalid manifest repeating hostile failure codes: each code once, within the budget, marked', () => {
    const codes = Array.from({ length: 200 }, (_, index) => `assertion.${cjk(index % 50)}`);
    const [evidence] = c2paEvidence(hostileStore(cjk, 'Invalid', codes));
    expect(evidence).toMatchObject({ finding: 'c2pa.invalid', weight: 0, details: { shortened: true } });
    expect(serializedBytes([evidence])).toBeLessThanOrEqual(C2PA_EVIDENCE_MAX_BYTES);
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
