import { polyNormalEquations } from './decode-kernel';
import { lutAt } from './tone';

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The JavaScript loop the WebAssembly accumulation replaced (local-gain.ts before the sixteenth session). */
function reference(W: Float32Array, I: Float32Array, w: number, h: number, step: number, lut: Float64Array, degree: number, saturated: number): { A: Float64Array; b: Float64Array; ti: Int32Array; tj: Int32Array } {
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  const sc = 1 / Math.max(cx, cy, 1);
  const idx: number[][] = [];
  let m = 0;
  for (let i = 0; i <= degree; i++) {
    idx.push([]);
    for (let j = 0; i + j <= degree; j++) idx[i].push(m++);
  }
  const ti = new Int32Array(m);
  const tj = new Int32Array(m);
  for (let i = 0; i <= degree; i++) for (let j = 0; i + j <= degree; j++) [ti[idx[i][j]], tj[idx[i][j]]] = [i, j];
  const up = new Float64Array(degree + 1);
  const vp = new Float64Array(degree + 1);
  const phi = new Float64Array(m);
  const A = new Float64Array(m * m);
  const b = new Float64Array(m);
  for (let y = 0; y < h; y += step) {
    const v = (y - cy) * sc;
    vp[0] = 1;
    for (let j = 1; j <= degree; j++) vp[j] = vp[j - 1] * v;
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (Number.isNaN(W[k]) || I[k] >= saturated) continue;
      const p = lutAt(lut, W[k]);
      const u = (x - cx) * sc;
      up[0] = 1;
      for (let i = 1; i <= degree; i++) up[i] = up[i - 1] * u;
      for (let i = 0; i <= degree; i++) for (let j = 0; i + j <= degree; j++) phi[idx[i][j]] = up[i] * vp[j] * p;
      for (let r = 0; r < m; r++) {
        b[r] += I[k] * phi[r];
        for (let c = r; c < m; c++) A[r * m + c] += phi[r] * phi[c];
      }
    }
  }
  return { A, b, ti, tj };
}

describe('polynomial gain field normal equations (WebAssembly)', () => {
  it.each([
    [261, 175, 1, 4, 64],
    [97, 311, 3, 4, 256],
    [40, 30, 2, 2, 33],
  ])('are bit for bit the JavaScript sums on %ix%i planes, step %i, degree %i, %i LUT bins', (w, h, step, degree, bins) => {
    const rnd = random(w * h + step);
    // left-out samples (NaN originals, saturated inspected pixels), values at the LUT's ends and beyond
    const W = Float32Array.from({ length: w * h }, () => (rnd() < 0.05 ? Number.NaN : rnd() < 0.02 ? 255.99 : rnd() * 256));
    const I = Float32Array.from({ length: w * h }, (_, k) => (rnd() < 0.05 ? 255 : (Number.isNaN(W[k]) ? 100 : W[k]) * (0.6 + 0.4 * rnd())));
    const lut = Float64Array.from({ length: bins }, (_, i) => 255 * (i / (bins - 1)) ** 1.3 + rnd());
    const ref = reference(W, I, w, h, step, lut, degree, 254.5);
    const cx = (w - 1) / 2;
    const cy = (h - 1) / 2;
    const sc = 1 / Math.max(cx, cy, 1);
    const got = polyNormalEquations({ W, I, w, h, step, lut, cx, cy, sc, degree, ti: ref.ti, tj: ref.tj, saturated: 254.5 });
    expect(got.b).toEqual(ref.b);
    expect(got.A).toEqual(ref.A);
    expect(got.b.every((v) => v !== 0)).toBe(true);
  });

  it('starts every call from zero sums (the instance is reused)', () => {
    const w = 50;
    const h = 40;
    const W = Float32Array.from({ length: w * h }, (_, k) => k % 251);
    const I = Float32Array.from(W, (v) => v * 0.9);
    const lut = Float64Array.from({ length: 64 }, (_, i) => i * 4);
    const input = { W, I, w, h, step: 1, lut, cx: (w - 1) / 2, cy: (h - 1) / 2, sc: 1 / 24.5, degree: 1, ti: Int32Array.from([0, 0, 1]), tj: Int32Array.from([0, 1, 0]), saturated: 254.5 };
    const first = polyNormalEquations(input);
    expect(polyNormalEquations(input)).toEqual(first);
  });
});
