import { edgeWeights } from './blind-decode';
import { mulberry32 as random } from './testing/random';

/**
 * What edgeWeights computed before the eighteenth session (a compare-and-branch per neighbour inside the plane, NaN
 * differences skipped), written plainly: each pixel's differences to its neighbours collected, then reduced.
 */
function edgeWeightsReference(d: Float32Array, w: number, h: number): Float32Array {
  const around = [-1, 0, 1].flatMap((dy) => [-1, 0, 1].map((dx) => [dx, dy]));
  return Float32Array.from(d, (v, k) => {
    const x = k % w;
    const y = Math.floor(k / w);
    const g = around
      .map(([dx, dy]) => [x + dx, y + dy])
      .filter(([xx, yy]) => xx >= 0 && yy >= 0 && xx < w && yy < h)
      .map(([xx, yy]) => Math.abs(d[yy * w + xx] - v))
      .reduce((best, a) => (a > best ? a : best), 0);
    const t = g / 3;
    return 1 / (1 + t * t);
  });
}

describe('edgeWeights', () => {
  it.each([
    [37, 23],
    [1, 1],
    [1, 9],
    [9, 1],
    [2, 2],
    [3, 3],
  ])('on a %i x %i plane with flat parts, edges and NaN is bit for bit the bounds-tested loop', (w, h) => {
    const rnd = random(w * 31 + h);
    // flat blocks of a few levels, noise on some pixels, a NaN now and then
    const d = Float32Array.from({ length: w * h }, (_, k) => {
      const x = k % w;
      const y = Math.floor(k / w);
      const base = ((x >> 3) + (y >> 2)) % 3 === 0 ? 40 : 200;
      const r = rnd();
      return r < 0.03 ? Number.NaN : r < 0.5 ? base + rnd() * 6 : base;
    });
    const got = edgeWeights(d, w, h);
    const want = edgeWeightsReference(d, w, h);
    expect(got.length).toBe(want.length);
    expect(Array.from(got).every((v, i) => Object.is(v, want[i]))).toBe(true);
    if (w * h > 100) {
      // flat interior pixels weigh 1, pixels on an edge between the levels much less
      expect(Math.max(...got)).toBe(1);
      expect(Math.min(...got)).toBeLessThan(0.01);
    }
  });
});
