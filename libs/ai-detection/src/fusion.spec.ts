import { Evidence } from './evidence';
import { categoryOf, fuseEvidence, MAX_LOG_ODDS } from './fusion';

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
    const fused = fuseEvidence([finding(0), finding(0)]);
    expect(fused.probability).toBe(0.5);
    expect(fused.noEvidence).toBe(true);
    expect(fused.verdict).toBe('cannot_be_determined');
    expect(fused.statement).toBe('Cannot be determined: no provenance or generator evidence was found.');
    expect(fused.statement).not.toMatch(/leaning/i);
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
