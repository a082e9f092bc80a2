import { informationBits } from './information';
import { rng } from './attacks';

/** A code word of n bits and Gaussian soft values around +-mean with unit variance. */
function channel(n: number, mean: number, seed: number): { coded: Uint8Array; z: Float64Array } {
  const r = rng(seed);
  const coded = Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const z = Float64Array.from(coded, (c) => (c ? mean : -mean) + gauss());
  return { coded, z };
}

describe('informationBits', () => {
  it('counts a bit per coded bit read with certainty, none for erased or contrary values', () => {
    const coded = Uint8Array.from({ length: 330 }, (_, i) => (i * 7) % 3 === 0 ? 1 : 0);
    const sure = Float64Array.from(coded, (c) => (c ? 40 : -40));
    expect(informationBits([sure], coded)).toBeCloseTo(330, 3);
    expect(informationBits([new Float64Array(330)], coded)).toBe(0);
    // a source that reads every bit wrong is given no weight (scale 0): no information, never negative
    expect(informationBits([Float64Array.from(sure, (v) => -v)], coded)).toBe(0);
  });

  it('reads close to the binary-input Gaussian channel capacity at 0 dB (0.486 bit per use)', () => {
    const { coded, z } = channel(20_000, 1, 7);
    const perUse = informationBits([z], coded) / coded.length;
    expect(perUse).toBeGreaterThan(0.45);
    expect(perUse).toBeLessThan(0.5);
  });

  it('adds what two independent sources say about the same bits', () => {
    const a = channel(5_000, 0.6, 11);
    const r = rng(12);
    const gauss = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    const b = Float64Array.from(a.coded, (c) => (c ? 0.6 : -0.6) + gauss());
    const one = informationBits([a.z], a.coded);
    const both = informationBits([a.z, b], a.coded);
    expect(both).toBeGreaterThan(one * 1.5);
  });
});
