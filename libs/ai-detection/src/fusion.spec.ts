import { Evidence } from './evidence';
import { categoryOf, fuseEvidence, independentEvidence, MAX_LOG_ODDS } from './fusion';
import { EVIDENCE_WEIGHTS, UNSIGNED_CLAIM } from './weights';

const finding = (weight: number, code = 'test'): Evidence => ({
  signal: 'metadata',
  finding: code,
  description: 'test',
  direction: weight > 0 ? 'ai' : weight < 0 ? 'real' : 'neutral',
  weight,
  details: {},
});

describe('evidence fusion', () => {
  it('uses exactly the thresholds of spec 2.7', () => {
    expect(categoryOf(0)).toBe('likely_real');
    expect(categoryOf(0.2499)).toBe('likely_real');
    expect(categoryOf(0.25)).toBe('uncertain_real');
    expect(categoryOf(0.4999)).toBe('uncertain_real');
    expect(categoryOf(0.5)).toBe('uncertain_ai');
    expect(categoryOf(0.7499)).toBe('uncertain_ai');
    expect(categoryOf(0.75)).toBe('likely_ai');
    expect(categoryOf(1)).toBe('likely_ai');
  });

  it('stays at even odds and says "cannot be determined" when nothing was found', () => {
    const fused = fuseEvidence([{ ...finding(0, 'sdWatermark.notFound'), signal: 'sdWatermark' }]);
    expect(fused.probability).toBe(0.5);
    expect(fused.noEvidence).toBe(true);
    expect(fused.verdict).toBe('cannot_be_determined');
    expect(fused.statement).toBe('Cannot be determined: no provenance or generator evidence was found.');
    expect(fused.statement).not.toMatch(/leaning/i);
  });

  // A manifest that fails validation, one without a source type, or metadata left unread weigh 0: the result has
  // no counted finding (noEvidence), but "no provenance or generator evidence was found" denied what the findings list.
  it('says what was found and not counted instead of "no evidence was found"', () => {
    const invalid: Evidence = { ...finding(0, 'c2pa.invalid'), signal: 'c2pa' };
    const fused = fuseEvidence([invalid, finding(0, 'metadata.unreadable'), { ...finding(0, 'sdWatermark.notFound'), signal: 'sdWatermark' }]);
    expect(fused).toMatchObject({ probability: 0.5, noEvidence: true, verdict: 'cannot_be_determined' });
    expect(fused.statement).toBe('Cannot be determined: provenance or metadata was found, but none of it could be counted (c2pa.invalid, metadata.unreadable); see the findings.');
  });

  it('names a side only in a likely_* band', () => {
    expect(fuseEvidence([finding(0.5)]).verdict).toBe('cannot_be_determined');
    expect(fuseEvidence([finding(0.5)]).noEvidence).toBe(false);
    expect(fuseEvidence([finding(-0.5)]).verdict).toBe('cannot_be_determined');
    expect(fuseEvidence([finding(4, 'c2pa.ai')]).verdict).toBe('generated');
    expect(fuseEvidence([finding(-3, 'c2pa.capture')]).verdict).toBe('captured');
  });

  it('says "edited with AI" when declared AI parts carry more of the weight than whole-image generation', () => {
    expect(fuseEvidence([finding(2, 'c2pa.compositeAi')]).verdict).toBe('edited_with_ai');
    expect(fuseEvidence([finding(2, 'c2pa.compositeAi'), finding(4.5, 'sdWatermark.detected')]).verdict).toBe('generated');
  });

  it('is monotone: more weight towards AI never lowers the probability', () => {
    let previous = -1;
    for (let w = -8; w <= 8; w += 0.5) {
      const { probability } = fuseEvidence([finding(w), finding(1)]);
      expect(probability).toBeGreaterThanOrEqual(previous);
      previous = probability;
    }
  });

  it('adds log-odds and never claims certainty', () => {
    expect(fuseEvidence([finding(1), finding(-1)]).probability).toBe(0.5);
    expect(fuseEvidence([finding(Math.log(3))]).probability).toBeCloseTo(0.75, 4);
    const extreme = fuseEvidence([finding(20), finding(20)]);
    expect(extreme.logOdds).toBe(MAX_LOG_ODDS);
    expect(extreme.probability).toBeLessThan(1);
    expect(fuseEvidence([finding(-20)]).probability).toBeGreaterThan(0);
  });
});

describe('unsigned claims', () => {
  const claim = (signal: Evidence['signal'], code: string, weight: number, signerTrusted?: boolean): Evidence => ({
    signal,
    finding: code,
    description: code,
    direction: weight > 0 ? 'ai' : 'real',
    weight,
    details: signerTrusted === undefined ? {} : { signerTrusted },
  });

  it('of one source count once per direction, the others listed with weight 0 and why', () => {
    const tags = [
      claim('metadata', 'metadata.sourceType.ai', UNSIGNED_CLAIM),
      claim('metadata', 'metadata.generatorParameters', UNSIGNED_CLAIM),
      claim('metadata', 'metadata.generatorSoftware', UNSIGNED_CLAIM),
      claim('c2pa', 'c2pa.ai', UNSIGNED_CLAIM, false),
    ];
    const independent = independentEvidence(tags);
    expect(independent.filter((e) => e.weight !== 0)).toHaveLength(1);
    expect(independent[1].details.notCountedBecause).toBe('same source as metadata.sourceType.ai');
    const fused = fuseEvidence(tags);
    expect(fused.logOdds).toBeCloseTo(UNSIGNED_CLAIM, 6);
    expect(fused.verdict).toBe('cannot_be_determined');
  });

  it('never reach likely_* alone, whichever side they claim', () => {
    for (const weight of [EVIDENCE_WEIGHTS.declaredAi, EVIDENCE_WEIGHTS.declaredCapture]) {
      const { category } = fuseEvidence([claim('metadata', 'metadata.sourceType.x', weight), claim('c2pa', 'c2pa.x', weight, false)]);
      expect(category).toMatch(/^uncertain_/);
    }
    expect(EVIDENCE_WEIGHTS.declaredAi).toBe(-EVIDENCE_WEIGHTS.declaredCapture);
  });

  it('do not absorb trusted credentials or marks, which can decide alone', () => {
    expect(fuseEvidence([claim('c2pa', 'c2pa.ai', EVIDENCE_WEIGHTS.c2paAiSource, true), claim('metadata', 'metadata.sourceType.ai', UNSIGNED_CLAIM)]).logOdds).toBeCloseTo(
      EVIDENCE_WEIGHTS.c2paAiSource + UNSIGNED_CLAIM,
      6,
    );
    expect(fuseEvidence([claim('sdWatermark', 'sdWatermark.detected', EVIDENCE_WEIGHTS.sdWatermark)]).verdict).toBe('generated');
    expect(fuseEvidence([claim('c2pa', 'c2pa.capture', EVIDENCE_WEIGHTS.c2paCapture, true)]).verdict).toBe('captured');
  });
});
