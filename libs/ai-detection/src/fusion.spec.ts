import { Evidence } from './evidence';
import { categoryOf, fuseEvidence, MAX_LOG_ODDS } from './fusion';

const finding = (weight: number): Evidence => ({
  signal: 'metadata',
  finding: 'test',
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

  it('stays at even odds and says so when nothing was found', () => {
    const fused = fuseEvidence([finding(0), finding(0)]);
    expect(fused.probability).toBe(0.5);
    expect(fused.noEvidence).toBe(true);
    expect(fused.statement).toMatch(/no evidence either way/i);
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
