import { edgeWeights } from './blind-decode';
import { mulberry32 as random } from './testing/random';

/** edgeWeights before the eighteenth session: every pixel's neighbours with bounds tests. */
function edgeWeightsReference(d: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      const v = d[k];
      let g = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const a = Math.abs(d[yy * w + xx] - v);
          if (a > g) g = a;
        }
      }
      const t = g / 3;
      out[k] = 1 / (1 + t * t);
    }
  }
  return out;
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
