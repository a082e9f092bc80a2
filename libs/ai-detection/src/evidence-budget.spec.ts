import { Evidence } from './evidence';
import { cutText, EVIDENCE_MAX_BYTES, fitEvidence, serializedBytes, SHORTENED_NOTE } from './evidence-budget';
import { fuseEvidence } from './fusion';

/** Control characters: six bytes of JSON each (`\u0001`), the most a character of the file's text can cost. */
const escaped = (length: number): string => '\u0001'.repeat(length);

function finding(signal: Evidence['signal'], name: string, weight: number, text: string, keys: number): Evidence {
  return {
    signal,
    finding: name,
    description: `${name}: ${text}`,
    direction: weight > 0 ? 'ai' : weight < 0 ? 'real' : 'neutral',
    weight,
    details: Object.fromEntries(Array.from({ length: keys }, (_, index) => [`tag${index}`, text])),
  };
}

describe('fitEvidence (the per-image size limit of the evidence)', () => {
  it('leaves evidence within the limit untouched', () => {
    const evidence = [finding('metadata', 'metadata.generatorSoftware', 0.5, 'ComfyUI', 2), finding('sdWatermark', 'sdWatermark.notFound', 0, 'no mark', 1)];
    expect(fitEvidence(evidence)).toBe(evidence);
  });

  it('shortens the largest findings first, marks them, keeps codes and weights: the fusion is unchanged', () => {
    const small = finding('sdWatermark', 'sdWatermark.notFound', 0, 'no mark', 1);
    const large = finding('metadata', 'metadata.generatorParameters', 0.5, escaped(5000), 8);
    const evidence = [small, large];
    expect(serializedBytes(evidence)).toBeGreaterThan(EVIDENCE_MAX_BYTES);
    const fitted = fitEvidence(evidence);
    expect(serializedBytes(fitted)).toBeLessThanOrEqual(EVIDENCE_MAX_BYTES);
    expect(fitted[0]).toBe(small);
    expect(fitted[1]).toMatchObject({ signal: 'metadata', finding: 'metadata.generatorParameters', direction: 'ai', weight: 0.5, details: { shortened: true } });
    expect(fitted[1].description).toContain(SHORTENED_NOTE);
    expect(fuseEvidence(fitted)).toEqual(fuseEvidence(evidence));
  });

  it('fits even when every text of every finding is at its worst, and counts the manifests it leaves out', () => {
    const step = {
      label: escaped(500), depth: 0, relationship: 'active', title: escaped(500), signer: escaped(500), issuer: escaped(500), signedAt: escaped(500),
      signerTrusted: false, timeStampTrusted: null, claimGenerator: escaped(500), actions: [escaped(500), escaped(500)], digitalSourceType: escaped(500),
    };
    const c2pa: Evidence = { ...finding('c2pa', 'c2pa.ai', 0.5, escaped(20_000), 10), provenance: [step, { ...step, depth: 1 }, { ...step, depth: 2 }] };
    const evidence = [c2pa, ...['a', 'b', 'c', 'd', 'e', 'f'].map((name) => finding('metadata', `metadata.${name}`, 0, escaped(20_000), 12))];
    const fitted = fitEvidence(evidence);
    expect(serializedBytes(fitted)).toBeLessThanOrEqual(EVIDENCE_MAX_BYTES);
    expect(fitted.map((e) => [e.finding, e.weight, e.details.shortened])).toEqual(evidence.map((e) => [e.finding, e.weight, true]));
    const shown = fitted[0].provenance?.length ?? 0;
    expect(fitted[0].details.omittedManifests).toBe(3 - shown);
  });

  it('cuts texts between characters, never inside a surrogate pair', () => {
    expect(cutText('ab😀c', 3)).toBe('ab…');
    expect(cutText('abc', 3)).toBe('abc');
  });
});
