import { accumulateCellsKernel, alignedSumsKernel, applyFirKernel, blockScoresKernel, firNormalEquations, JointLayer, JointOperator, jointOperatorKernel, nccSearchKernel, polyNormalEquations, retainedKernelBytes, warpCubicKernel } from './decode-kernel';
import { applyH, sample, sampleCubicOrNaN } from './image';
import { mulberry32 as random } from './testing/random';
import { lutAt } from './tone';

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

  it.each([
    [120, 90, 1],
    [301, 207, 3],
  ])('FIR normal equations are bit for bit the JavaScript sums on %ix%i planes, step %i', (w, h, step) => {
    const rnd = random(w + h);
    const W = Float32Array.from({ length: w * h }, (_, k) => (rnd() < 0.01 ? Number.NaN : k % 7 === 0 ? 128 : rnd() * 255));
    const I = Float32Array.from(W, (v) => (Number.isNaN(v) ? 0 : v * 0.8 + 20 + rnd() * 4));
    const ref = firReference(W, I, w, h, step);
    const got = firNormalEquations(W, I, w, h, step);
    expect(got.count).toBe(ref.count);
    expect(got.count).toBeGreaterThan(100);
    expect(got.b).toEqual(ref.b);
    expect(got.A).toEqual(ref.A);
  });

  it.each([false, true])('the FIR filter (flip %s) gives the JavaScript loop\'s pixels, NaN on the border and around NaN', (flip) => {
    const w = 83;
    const h = 61;
    const rnd = random(flip ? 2 : 1);
    const W = Float32Array.from({ length: w * h }, () => (rnd() < 0.01 ? Number.NaN : rnd() * 255));
    const k = Float64Array.from({ length: 26 }, () => rnd() - 0.45);
    const offs = new Int32Array(25);
    const coef = new Float64Array(25);
    let j = 0;
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        offs[j] = flip ? -(dy * w + dx) : dy * w + dx;
        coef[j] = k[j];
        j++;
      }
    }
    let sumK = 0;
    for (let t = 0; t < 25; t++) sumK += coef[t];
    const off = flip ? 0 : 128;
    const bias = flip ? 0 : k[25];
    const expected = new Float32Array(w * h).fill(Number.NaN);
    for (let y = 2; y < h - 2; y++) {
      for (let x = 2; x < w - 2; x++) {
        const c = y * w + x;
        let acc = 0;
        for (let t = 0; t < 25; t++) acc = acc + coef[t] * W[c + offs[t]];
        expected[c] = acc - off * sumK + bias + off;
      }
    }
    const got = applyFirKernel(W, w, h, coef, offs, off, sumK, bias);
    expect(sameValues(got, expected)).toBe(true);
    expect(got.some((v) => Number.isNaN(v))).toBe(true);
    expect(got.filter((v) => !Number.isNaN(v)).length).toBeGreaterThan(((w - 4) * (h - 4)) / 2);
  });

  it('cell sums are bit for bit the JavaScript ones, with NaN values and positions off the grid', () => {
    const rnd = random(99);
    const n = 20_000;
    const nx = 37;
    const ny = 23;
    // positions beyond [0, 1] clamp to the edge cells; NaN positions and values add nothing
    const u = Float32Array.from({ length: n }, () => (rnd() < 0.01 ? Number.NaN : rnd() * 1.1 - 0.05));
    const v = Float32Array.from({ length: n }, () => rnd() * 1.1 - 0.05);
    const r = Float32Array.from({ length: n }, () => (rnd() < 0.05 ? Number.NaN : (rnd() - 0.5) * 20));
    const ref = accumulateReference(nx, ny, u, v, r);
    const got = accumulateCellsKernel(nx, ny, u, v, r);
    for (const key of ['p', 'w1', 'w2', 'r2'] as const) expect(sameValues(got[key], ref[key])).toBe(true);
    expect(got.w1.every((x) => x > 0)).toBe(true);
  });

  it.each([
    ['the identity, same size', [1, 0, 0, 0, 1, 0, 0, 0, 1], 96, 71, 96, 71],
    ['a rotation by 17 degrees with a shift, half of it outside', [0.956, -0.292, 30.5, 0.292, 0.956, -12.25, 0, 0, 1], 96, 71, 120, 90],
    ['a left-right mirror scaled by 0.7 (a reduced source)', [-0.7, 0, 66.3, 0, 0.7, 0.4, 0, 0, 1], 53, 39, 90, 66],
    ['a keystone (projective), sub-pixel and border samples', [0.9, 0.05, 3.3, -0.02, 1.1, 2.7, 0.0004, -0.0007, 1], 77, 61, 80, 64],
  ])('the warp of the original (%s) gives the JavaScript loop\'s positions and samples', (_what, h, sw, sh, iw, ih) => {
    const rnd = random(sw * sh);
    const H = Float64Array.from(h);
    // the source is the original reduced by (sw / ow, sh / oh), as registered-decode.ts reduces it for a smaller copy
    const ow = Math.round(sw * 1.3);
    const oh = Math.round(sh * 1.3);
    const src = { w: sw, h: sh, d: Float32Array.from({ length: sw * sh }, () => rnd() * 255) };
    const rx = sw / ow;
    const ry = sh / oh;
    const n = iw * ih;
    const qx = new Float32Array(n);
    const qy = new Float32Array(n);
    const W = new Float32Array(n);
    // registered-decode.ts's loop before the seventeenth session
    for (let y = 0; y < ih; y++) {
      for (let x = 0; x < iw; x++) {
        const k = y * iw + x;
        const [a, b] = applyH(H, x, y);
        qx[k] = (a + 0.5) / ow;
        qy[k] = (b + 0.5) / oh;
        W[k] = sampleCubicOrNaN(src.d, src.w, src.h, (a + 0.5) * rx - 0.5, (b + 0.5) * ry - 0.5);
      }
    }
    const got = warpCubicKernel(src, ow, oh, H, iw, ih);
    expect(sameValues(got.qx, qx)).toBe(true);
    expect(sameValues(got.qy, qy)).toBe(true);
    expect(sameValues(got.W, W)).toBe(true);
    // the cases reach the cubic interior and (but for the identity) the bilinear border and the outside
    expect(got.W.filter((v) => !Number.isNaN(v)).length).toBeGreaterThan(n / 4);
  });

  it('the warp refuses a source narrower than two pixels and a homography of other than 9 values', () => {
    expect(() => warpCubicKernel({ w: 1, h: 5, d: new Float32Array(5) }, 1, 5, Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), 4, 4)).toThrow('bad input');
    expect(() => warpCubicKernel({ w: 5, h: 5, d: new Float32Array(25) }, 5, 5, new Float64Array(6), 4, 4)).toThrow('bad input');
  });

  it.each([
    [61, 47, 13, 9, 1, false, 47],
    [61, 47, 13, 9, 1, false, 13],
    [64, 40, 20, 11, 2, true, 42],
    [64, 40, 20, 11, 2, true, 19],
    [37, 29, 37, 29, 1, false, 0],
  ])('the template scan over a %ix%i plane (template %ix%i, step %i, irregular %s, planted at x = %i) finds the JavaScript loop\'s score and place', (ow, oh, tw, th, step, irregular, pxs) => {
    const rnd = random(ow * oh + tw);
    // a flat band (placements there are skipped) and a copy of the template's source planted at (pxs, pys)
    const O = Float32Array.from({ length: ow * oh }, (_, i) => (Math.floor(i / ow) < 4 ? 50 : rnd() * 255));
    const offs: number[] = [];
    for (let ty = 0; ty < th; ty += step) for (let tx = 0; tx < tw; tx += step) if (!irregular || rnd() > 0.3) offs.push(ty * ow + tx);
    // the planted place falls on each of the four lanes of a group of placements (x mod 4 = 3, 1, 2, 3, 0)
    const pys = oh - th;
    const vals = offs.map((o) => O[pys * ow + pxs + o] + (rnd() - 0.5) * 30);
    const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
    let ss = 0;
    for (const v of vals) ss += (v - mean) ** 2;
    const t = Float64Array.from(vals, (v) => (v - mean) / Math.sqrt(ss));
    const off = Int32Array.from(offs);
    const n = off.length;
    // register.ts's coarseSearch loop before the seventeenth session
    let best = -2;
    let bx = 0;
    let by = 0;
    for (let y = 0; y + th <= oh; y++) {
      for (let x = 0; x + tw <= ow; x++) {
        const base = y * ow + x;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let k = 0; k < n; k++) {
          const o = O[base + off[k]];
          s1 += t[k] * o;
          s2 += o;
          s3 += o * o;
        }
        const den = s3 - (s2 * s2) / n;
        if (den <= 1e-6) continue;
        const c = s1 / Math.sqrt(den);
        if (c > best) {
          best = c;
          bx = x;
          by = y;
        }
      }
    }
    const got = nccSearchKernel({ w: ow, h: oh, d: O }, tw, th, off, t);
    expect(Object.is(got.best, best)).toBe(true);
    expect([got.x, got.y]).toEqual([bx, by]);
    expect([got.x, got.y]).toEqual([pxs, pys]);
  });

  it('the template scan scores -2 when every placement is flat', () => {
    const O = new Float32Array(30 * 20).fill(7);
    const off = Int32Array.from([0, 1, 30, 31]);
    const t = Float64Array.from([0.5, -0.5, 0.5, -0.5]);
    expect(nccSearchKernel({ w: 30, h: 20, d: O }, 2, 2, off, t)).toEqual({ best: -2, x: 0, y: 0 });
  });

  it('the aligned samples\' NCC sums are the JavaScript loop\'s, over all pairs, outside the fill and per tile, as planes change', () => {
    const rnd = random(4242);
    const plane = (w: number, h: number): { w: number; h: number; d: Float32Array } => ({ w, h, d: Float32Array.from({ length: w * h }, () => rnd() * 255) });
    const O = plane(97, 71);
    const I1 = plane(80, 60);
    const I2 = plane(80, 60);
    const fill = Uint8Array.from({ length: 80 * 60 }, (_, k) => (k % 80 < 9 ? 1 : 0));
    // register.ts's forEachAlignedSample + addPair before the seventeenth session
    const reference = (I: typeof O, H: Float64Array, step: number, tiles: number, mask: Uint8Array): Float64Array => {
      const s = new Float64Array(tiles === 0 ? 12 : tiles * tiles * 6);
      const add = (o: number, a: number, b: number): void => {
        s[o] += 1;
        s[o + 1] += a;
        s[o + 2] += b;
        s[o + 3] += a * a;
        s[o + 4] += b * b;
        s[o + 5] += a * b;
      };
      for (let y = 0; y < I.h; y += step) {
        for (let x = 0; x < I.w; x += step) {
          const [qx, qy] = applyH(H, x, y);
          if (qx < 0 || qy < 0 || qx > O.w - 1 || qy > O.h - 1) continue;
          const a = I.d[y * I.w + x];
          const b = sample(O, qx, qy);
          if (tiles === 0) {
            add(0, a, b);
            if (!mask[y * I.w + x]) add(6, a, b);
          } else {
            const tx = Math.min(tiles - 1, Math.floor((x * tiles) / I.w));
            const ty = Math.min(tiles - 1, Math.floor((y * tiles) / I.h));
            add((ty * tiles + tx) * 6, a, b);
          }
        }
      }
      return s;
    };
    const geometries = [
      [1, 0, 0, 0, 1, 0, 0, 0, 1],
      [0.93, -0.37, 25.5, 0.37, 0.93, -8.25, 0, 0, 1],
      [1.1, 0.05, -3.3, -0.02, 0.9, 2.7, 0.0009, -0.0011, 1],
    ].map((h) => Float64Array.from(h));
    const fill2 = Uint8Array.from(fill, (v, k) => (k % 80 > 70 ? 1 : v));
    // a new inspected plane or fill mask is copied in, the same ones are not: every order of changes is compared
    for (const [I, mask, modes] of [[I1, fill, [[1, 0], [3, 0]]], [I2, fill, [[1, 0]]], [I2, fill2, [[2, 8], [1, 0]]], [I1, fill2, [[2, 8], [3, 0]]]] as const) {
      for (const H of geometries) {
        for (const [step, tiles] of modes) {
          const got = alignedSumsKernel(O, I, H, step, tiles === 0 ? mask : null, tiles);
          const want = reference(I, H, step, tiles, mask);
          expect(Array.from(got)).toEqual(Array.from(want));
          expect(got[0] + (tiles ? got[6] : 0)).toBeGreaterThan(0);
        }
      }
    }
  });

  it('the aligned sums refuse a missing fill mask for the global score', () => {
    const p = { w: 10, h: 10, d: new Float32Array(100) };
    expect(() => alignedSumsKernel(p, p, Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), 1, null, 0)).toThrow('bad input');
  });

  it.each([
    [6, 4],
    [10, 3],
    [2, 12],
  ])('block matching scores (R = %i, S = %i) are the JavaScript loop\'s at every shift', (R, S) => {
    const rnd = random(R * 100 + S);
    const O = { w: 90, h: 70, d: Float32Array.from({ length: 90 * 70 }, () => rnd() * 255) };
    const size = 2 * R + 1;
    const cx = 40;
    const cy = 33;
    // a patch from the original near (cx + 1, cy − 2), a fifth of its taps left out, zero mean over the rest
    const valid = Uint8Array.from({ length: size * size }, () => (rnd() < 0.2 ? 0 : 1));
    const patch = new Float64Array(size * size);
    let n = 0;
    let mean = 0;
    for (let b = -R; b <= R; b++) {
      for (let a = -R; a <= R; a++) {
        const k = (b + R) * size + a + R;
        if (!valid[k]) continue;
        patch[k] = O.d[(cy - 2 + b) * O.w + cx + 1 + a] + (rnd() - 0.5) * 20;
        mean += patch[k];
        n++;
      }
    }
    mean /= n;
    let ss = 0;
    for (let k = 0; k < patch.length; k++) {
      if (!valid[k]) continue;
      patch[k] -= mean;
      ss += patch[k] * patch[k];
    }
    // register.ts's blockMatches loop before the seventeenth session
    const want = new Float64Array((2 * S + 1) * (2 * S + 1));
    for (let dy = -S; dy <= S; dy++) {
      for (let dx = -S; dx <= S; dx++) {
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let b = -R; b <= R; b++) {
          const row = (cy + dy + b) * O.w + cx + dx;
          for (let a = -R; a <= R; a++) {
            const k = (b + R) * size + a + R;
            if (!valid[k]) continue;
            const o = O.d[row + a];
            s1 += patch[k] * o;
            s2 += o;
            s3 += o * o;
          }
        }
        want[(dy + S) * (2 * S + 1) + dx + S] = s1 / Math.sqrt(Math.max(1e-9, (s3 - (s2 * s2) / n) * ss));
      }
    }
    const got = blockScoresKernel(O, cx, cy, R, S, patch, valid, n, ss);
    expect(Array.from(got)).toEqual(Array.from(want));
    // the planted shift scores best
    expect(got.indexOf(Math.max(...got))).toBe((S - 2) * (2 * S + 1) + S + 1);
  });

  it('block matching refuses a window outside the original', () => {
    const O = { w: 20, h: 20, d: new Float32Array(400) };
    expect(() => blockScoresKernel(O, 5, 10, 3, 3, new Float64Array(49), new Uint8Array(49), 49, 1)).toThrow('bad input');
  });

  it('an instance grown beyond 64 MB by a call is dropped after it, and the next call gets a small one', () => {
    // 3 planes of 6 M floats: 72 MB, beyond what the process keeps
    const n = 6_000_000;
    const u = new Float32Array(n).fill(0.25);
    const v = new Float32Array(n).fill(0.75);
    const r = new Float32Array(n).fill(2);
    const big = accumulateCellsKernel(4, 4, u, v, r);
    expect(big.w1.reduce((a, b) => a + b, 0)).toBeCloseTo(n, -3);
    expect(retainedKernelBytes()).toBe(0);
    const small = accumulateCellsKernel(4, 4, u.subarray(0, 10), v.subarray(0, 10), r.subarray(0, 10));
    expect(sameValues(small.p, accumulateReference(4, 4, u.subarray(0, 10), v.subarray(0, 10), r.subarray(0, 10)).p)).toBe(true);
    expect(retainedKernelBytes()).toBeGreaterThan(0);
    expect(retainedKernelBytes()).toBeLessThan(64 * 1024 * 1024);
  });
});

/** Equal values, NaN equal to NaN (the bits of a NaN are not compared: nothing reads them). */
function sameValues(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && a.every((x, i) => (Number.isNaN(x) && Number.isNaN(b[i])) || Object.is(x, b[i]));
}

/** fir.ts's fitFir loop before the sixteenth session. */
function firReference(W: Float32Array, I: Float32Array, w: number, h: number, step: number): { A: Float64Array; b: Float64Array; count: number } {
  const R = 2;
  const n = 26;
  const A = new Float64Array(n * n);
  const b = new Float64Array(n);
  const row = new Float64Array(n);
  let count = 0;
  for (let y = R; y < h - R; y += step) {
    for (let x = R; x < w - R; x += step) {
      let ok = true;
      let j = 0;
      for (let dy = -R; dy <= R && ok; dy++) {
        const base = (y + dy) * w + x;
        for (let dx = -R; dx <= R; dx++) {
          const v = W[base + dx];
          if (Number.isNaN(v)) {
            ok = false;
            break;
          }
          row[j++] = v - 128;
        }
      }
      if (!ok) continue;
      row[n - 1] = 1;
      const t = I[y * w + x] - 128;
      for (let i = 0; i < n; i++) {
        const ri = row[i];
        if (ri === 0) continue;
        b[i] += ri * t;
        for (let k = i; k < n; k++) A[i * n + k] += ri * row[k];
      }
      count++;
    }
  }
  return { A, b, count };
}

/** cell-decode.ts's accumulate (with tapOf) before the sixteenth session. */
function accumulateReference(nx: number, ny: number, u: Float32Array, v: Float32Array, r: Float32Array): { p: Float32Array; w1: Float32Array; w2: Float32Array; r2: Float32Array } {
  const p = new Float32Array(nx * ny);
  const w1 = new Float32Array(nx * ny);
  const w2 = new Float32Array(nx * ny);
  const r2 = new Float32Array(nx * ny);
  for (let k = 0; k < r.length; k++) {
    const val = r[k];
    if (val !== val) continue;
    let fx = u[k] * nx - 0.5;
    let fy = v[k] * ny - 0.5;
    let ix = Math.floor(fx);
    let iy = Math.floor(fy);
    if (ix < 0) [ix, fx] = [0, 0];
    else if (ix >= nx - 1) [ix, fx] = [nx - 2, 1];
    else fx -= ix;
    if (iy < 0) [iy, fy] = [0, 0];
    else if (iy >= ny - 1) [iy, fy] = [ny - 2, 1];
    else fy -= iy;
    const c = iy * nx + ix;
    const vv = val * val;
    const taps: [number, number][] = [[c, (1 - fx) * (1 - fy)], [c + 1, fx * (1 - fy)], [c + nx, (1 - fx) * fy], [c + nx + 1, fx * fy]];
    for (const [cell, a] of taps) {
      p[cell] += a * val;
      w1[cell] += a;
      w2[cell] += a * a;
      r2[cell] += a * vv;
    }
  }
  return { p, w1, w2, r2 };
}

/** soft-decode.ts's joint operator loops before the eighteenth session (synthesis, filter, weights, projection). */
function jointReference(w: number, h: number, layers: readonly JointLayer[], W: Float32Array, fir: Float64Array | null): { apply: (sv: Float64Array) => Float64Array; rhs: (r: Float32Array) => Float64Array } {
  const n = w * h;
  const synth = (sv: Float64Array): Float32Array => {
    const m = new Float32Array(n);
    for (const { nx, bit, cf, c: cc, fx, fy } of layers) {
      for (let k = 0; k < n; k++) {
        const c = cc[k];
        if (c < 0) continue;
        const a = cf[c] * sv[bit[c]];
        const b = cf[c + 1] * sv[bit[c + 1]];
        const d = cf[c + nx] * sv[bit[c + nx]];
        const e = cf[c + nx + 1] * sv[bit[c + nx + 1]];
        const x = fx[k];
        const y = fy[k];
        m[k] += (a + (b - a) * x) * (1 - y) + (d + (e - d) * x) * y;
      }
    }
    return m;
  };
  const project = (img: Float32Array): Float64Array => {
    const out = new Float64Array(330);
    for (const { nx, bit, cf, c: cc, fx, fy } of layers) {
      for (let k = 0; k < n; k++) {
        const c = cc[k];
        if (c < 0) continue;
        const val = img[k];
        if (val === 0) continue;
        const x = fx[k];
        const y = fy[k];
        out[bit[c]] += cf[c] * val * (1 - x) * (1 - y);
        out[bit[c + 1]] += cf[c + 1] * val * x * (1 - y);
        out[bit[c + nx]] += cf[c + nx] * val * (1 - x) * y;
        out[bit[c + nx + 1]] += cf[c + nx + 1] * val * x * y;
      }
    }
    return out;
  };
  const convolve = (x: Float32Array, flip: boolean): Float32Array => {
    const k = fir as Float64Array;
    const out = new Float32Array(n);
    for (let y = 2; y < h - 2; y++) {
      for (let xx = 2; xx < w - 2; xx++) {
        const c = y * w + xx;
        let acc = 0;
        let j = 0;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            const v = flip ? x[c - dy * w - dx] : x[c + dy * w + dx];
            acc += k[j++] * v;
          }
        }
        out[c] = acc;
      }
    }
    return out;
  };
  const weigh = (m: Float32Array): Float32Array => {
    for (let k = 0; k < n; k++) m[k] *= W[k];
    return m;
  };
  const forward = (m: Float32Array): Float32Array => (fir ? convolve(m, false) : m);
  const adjoint = (m: Float32Array): Float32Array => (fir ? convolve(m, true) : m);
  return { apply: (sv) => project(adjoint(weigh(forward(synth(sv))))), rhs: (r) => project(adjoint(weigh(Float32Array.from(r)))) };
}

/** A w x h box of two random layers whose pixels have a cell only inside [x0, x1) x [y0, y1), weight 0 elsewhere. */
function jointSetup(seed: number, w: number, h: number, inside = { x0: 0, y0: 0, x1: w, y1: h }): { layers: JointLayer[]; W: Float32Array; fir: Float64Array; sv: Float64Array; r: Float32Array } {
  const rnd = random(seed);
  const n = w * h;
  const cellOf = (k: number): boolean => {
    const x = k % w;
    const y = Math.floor(k / w);
    return x >= inside.x0 && x < inside.x1 && y >= inside.y0 && y < inside.y1 && rnd() > 0.05;
  };
  const has = Array.from({ length: n }, (_, k) => cellOf(k));
  const layers = [
    [13, 9],
    [7, 5],
  ].map(([nx, ny]) => {
    const cells = nx * ny;
    return {
      nx,
      bit: Uint16Array.from({ length: cells }, () => Math.floor(rnd() * 330)),
      cf: Float32Array.from({ length: cells }, () => rnd() * 4 - 2),
      c: Int32Array.from(has, (ok) => (ok ? Math.floor(rnd() * (ny - 1)) * nx + Math.floor(rnd() * (nx - 1)) : -1)),
      fx: Float32Array.from({ length: n }, () => rnd()),
      fy: Float32Array.from({ length: n }, () => rnd()),
    };
  });
  const W = Float32Array.from(has, (ok) => (ok ? 0.1 + rnd() : 0));
  const fir = Float64Array.from({ length: 26 }, (_, t) => (t === 12 ? 0.8 : (rnd() - 0.5) * 0.1));
  const sv = Float64Array.from({ length: 330 }, () => rnd() * 2 - 1);
  const r = Float32Array.from(has, (ok) => (ok ? (rnd() - 0.5) * 20 : 0));
  return { layers, W, fir, sv, r };
}

/** The operator with its views filled from `layers` and `W` (as soft-decode.ts fills them). */
function operatorFor(w: number, h: number, layers: readonly JointLayer[], W: Float32Array, fir: Float64Array | null): JointOperator {
  const op = jointOperatorKernel(w, h, layers.map((L) => ({ nx: L.nx, cells: L.cf.length })), fir, 330);
  op.layers.forEach((view, l) => {
    const L = layers[l];
    view.c.set(L.c);
    view.fx.set(L.fx);
    view.fy.set(L.fy);
    view.cf.set(L.cf);
    view.bit.set(L.bit);
  });
  op.W.set(W);
  return op;
}

function sameBits(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

describe('joint estimate operator (WebAssembly)', () => {
  it("is bit for bit the JavaScript loops, with and without the filter, for every count of pixels in a row's last group of four", () => {
    for (const w of [9, 10, 11, 12, 61]) {
      const h = 23;
      const { layers, W, fir, sv, r } = jointSetup(w, w, h);
      for (const filter of [fir, null]) {
        const op = operatorFor(w, h, layers, W, filter);
        const want = jointReference(w, h, layers, W, filter);
        try {
          const got = op.apply(sv);
          expect(sameBits(got, want.apply(sv))).toBe(true);
          expect(got.some((v) => v !== 0)).toBe(true);
          // called again with other values: nothing of the previous call is left in its planes
          const sv2 = sv.map((v) => -0.5 * v);
          expect(sameBits(op.apply(sv2), want.apply(sv2))).toBe(true);
          expect(sameBits(op.rhs(r), want.rhs(r))).toBe(true);
        } finally {
          op.release();
        }
      }
    }
  });

  it('gives the same values on the box around the pixels with a cell (grown by 2) as on the whole plane', () => {
    // the box as soft-decode.ts cuts it: inside the plane, on its left and bottom edges (the filter's zero border
    // then falls on the same pixels in both)
    const w = 50;
    const h = 40;
    const inside = { x0: 0, y0: 12, x1: 31, y1: 40 };
    const full = jointSetup(5, w, h, inside);
    const box = { x0: 0, y0: inside.y0 - 2, x1: inside.x1 + 2, y1: h };
    const bw = box.x1 - box.x0;
    const bh = box.y1 - box.y0;
    function cut<T extends Float32Array | Int32Array>(a: T): T {
      const out = new (a.constructor as new (n: number) => T)(bw * bh);
      for (let y = 0; y < bh; y++) out.set(a.subarray((box.y0 + y) * w + box.x0, (box.y0 + y) * w + box.x1), y * bw);
      return out;
    }
    const cutLayers = full.layers.map((L) => ({ ...L, c: cut(L.c), fx: cut(L.fx), fy: cut(L.fy) }));
    const a = operatorFor(w, h, full.layers, full.W, full.fir);
    const onPlane = [a.apply(full.sv), a.rhs(full.r)];
    a.release();
    const b = operatorFor(bw, bh, cutLayers, cut(full.W), full.fir);
    const onBox = [b.apply(full.sv), b.rhs(cut(full.r))];
    b.release();
    expect(sameBits(onBox[0], onPlane[0])).toBe(true);
    expect(sameBits(onBox[1], onPlane[1])).toBe(true);
    expect(onPlane[0].some((v) => v !== 0)).toBe(true);
  });
});
