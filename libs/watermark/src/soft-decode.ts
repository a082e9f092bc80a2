/** Soft decoding of a weak registered residual: the joint least-squares estimate and the reweighted layer sum. */
import { pixelTaps, PixelTaps, smoothCells } from './cell-decode';
import { convolve } from './fir';
import { CODED_BITS, convEncode, INFO_BITS, viterbiDecode } from './payload';
import { Layer } from './pattern';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/**
 * The layers' z-scores summed with weights mean / variance of each layer's agreement with the code word that the
 * plain sum decodes to (the optimal weights for Gaussian observations, estimated). The z-scores of the two layers
 * are not equally calibrated after heavy resampling (the host leakage differs per scale), so their plain sum can
 * decode wrong where a weighted one does not: a scale > crop > rotate > contrast > mirror chain of the rocket
 * decoded with 11 wrong id bits summed, exactly weighted (fine 0.05, coarse 0.02). Even a wrong first code word
 * agrees with most coded bits, so the estimates hold.
 */
export function reweigh(zs: Float64Array[]): Float64Array {
  const sum = new Float64Array(CODED_BITS);
  for (const z of zs) for (let i = 0; i < CODED_BITS; i++) sum[i] += z[i];
  const coded = convEncode(viterbiDecode(sum, INFO_BITS));
  const out = new Float64Array(CODED_BITS);
  for (const z of zs) {
    let m = 0;
    let q = 0;
    for (let i = 0; i < CODED_BITS; i++) {
      const v = coded[i] ? z[i] : -z[i];
      m += v;
      q += v * v;
    }
    m /= CODED_BITS;
    const variance = q / CODED_BITS - m * m;
    const w = variance > 0 ? math.max(0, m / variance) : 0;
    for (let i = 0; i < CODED_BITS; i++) out[i] += w * z[i];
  }
  return out;
}

const JOINT_ITERS = 16;

/**
 * Weighted least-squares estimate of the 330 coded-bit signs from the residual r0 (mark + noise), with the mark modelled
 * as FIR * (sum over both layers of bilinear cells carrying amp * chip * s[bit]); solved by conjugate gradients.
 * Returns z-like soft values (estimate times the square root of the per-bit information).
 */
export function jointSoft(
  layers: Layer[],
  amps: Float32Array[],
  qx: Float32Array,
  qy: Float32Array,
  r0: Float32Array,
  fir: Float64Array | null,
  w: number,
  h: number,
): Float64Array | null {
  const n = w * h;
  const valid = new Uint8Array(n);
  let cnt = 0;
  for (let k = 0; k < n; k++) if (r0[k] === r0[k]) { valid[k] = 1; cnt++; }
  if (cnt < 256) return null;
  const taps = layers.map((L) => pixelTaps(L.nx, L.ny, qx, qy, valid));
  // per-cell coefficient (relative embedding amplitude x chip), with the embedder's per-layer energy split
  const coef = layers.map((L, l) => {
    const a = amps[l];
    let ms = 0;
    for (let c = 0; c < a.length; c++) ms += a[c] * a[c];
    const g = math.sqrt((l === 0 ? 0.4 : 0.6) / (ms / a.length));
    const out = new Float32Array(a.length);
    for (let c = 0; c < a.length; c++) out[c] = a[c] * g * L.chip[c];
    return out;
  });
  // per-pixel weight: inverse local residual variance (fine cells, smoothed)
  const L0 = layers[0];
  const t0 = taps[0];
  const sum = new Float32Array(L0.nx * L0.ny);
  const sq = new Float32Array(L0.nx * L0.ny);
  const num = new Float32Array(L0.nx * L0.ny);
  const rr = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    if (!valid[k]) continue;
    const c = t0.c[k] + (t0.fx[k] >= 0.5 ? 1 : 0) + (t0.fy[k] >= 0.5 ? L0.nx : 0);
    rr[k] = r0[k];
    sum[c] += r0[k];
    sq[c] += r0[k] * r0[k];
    num[c] += 1;
  }
  const lv = new Float32Array(sum.length).fill(-1);
  for (let c = 0; c < lv.length; c++) if (num[c] > 0) lv[c] = math.max(0, sq[c] / num[c] - (sum[c] / num[c]) ** 2);
  const sm = smoothCells(lv, L0.nx, L0.ny, 1);
  const W = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    if (!valid[k]) continue;
    const c = t0.c[k] + (t0.fx[k] >= 0.5 ? 1 : 0) + (t0.fy[k] >= 0.5 ? L0.nx : 0);
    W[k] = 1 / (math.max(0, sm[c]) + 0.5);
  }
  // one layer's grid width, bit of each cell, per-cell coefficients and pixel taps (the three loops below walk them)
  const layerTaps = (l: number): { nx: number; bit: Layer['bit']; cf: Float32Array; cc: Int32Array; fx: PixelTaps['fx']; fy: PixelTaps['fy'] } => {
    const t = taps[l];
    return { nx: layers[l].nx, bit: layers[l].bit, cf: coef[l], cc: t.c, fx: t.fx, fy: t.fy };
  };
  const synth = (sv: Float64Array): Float32Array => {
    const m = new Float32Array(n);
    for (let l = 0; l < layers.length; l++) {
      const { nx, bit, cf, cc, fx, fy } = layerTaps(l);
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
    const out = new Float64Array(CODED_BITS);
    for (let l = 0; l < layers.length; l++) {
      const { nx, bit, cf, cc, fx, fy } = layerTaps(l);
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
  const forward = (m: Float32Array): Float32Array => (fir ? convolve(m, w, h, fir, false) : m);
  const adjoint = (m: Float32Array): Float32Array => (fir ? convolve(m, w, h, fir, true) : m);
  const weigh = (m: Float32Array): Float32Array => {
    for (let k = 0; k < n; k++) m[k] *= W[k];
    return m;
  };
  // rhs and the per-bit information (diagonal) for the final scaling
  const bvec = project(adjoint(weigh(rr)));
  const diag = new Float64Array(CODED_BITS);
  // diagonal estimate: energy of each bit's template, computed without the cross terms (squared coefficients)
  for (let l = 0; l < layers.length; l++) {
    const { nx, bit, cf, cc, fx, fy } = layerTaps(l);
    for (let k = 0; k < n; k++) {
      const c = cc[k];
      if (c < 0) continue;
      const x = fx[k];
      const y = fy[k];
      const wk = W[k];
      const a = (1 - x) * (1 - y);
      const b = x * (1 - y);
      const d = (1 - x) * y;
      const e = x * y;
      diag[bit[c]] += wk * (cf[c] * a) ** 2;
      diag[bit[c + 1]] += wk * (cf[c + 1] * b) ** 2;
      diag[bit[c + nx]] += wk * (cf[c + nx] * d) ** 2;
      diag[bit[c + nx + 1]] += wk * (cf[c + nx + 1] * e) ** 2;
    }
  }
  let dmean = 0;
  for (let i = 0; i < CODED_BITS; i++) dmean += diag[i];
  dmean /= CODED_BITS;
  if (!(dmean > 0)) return null;
  const lambda = 0.05 * dmean;
  const apply = (sv: Float64Array): Float64Array => {
    const out = project(adjoint(weigh(forward(synth(sv)))));
    for (let i = 0; i < CODED_BITS; i++) out[i] += lambda * sv[i];
    return out;
  };
  // conjugate gradients from 0
  const x = new Float64Array(CODED_BITS);
  const rres = Float64Array.from(bvec);
  const pdir = Float64Array.from(bvec);
  let rs = 0;
  for (let i = 0; i < CODED_BITS; i++) rs += rres[i] * rres[i];
  for (let it = 0; it < JOINT_ITERS && rs > 0; it++) {
    const Ap = apply(pdir);
    let pAp = 0;
    for (let i = 0; i < CODED_BITS; i++) pAp += pdir[i] * Ap[i];
    if (!(pAp > 0)) break;
    const alpha = rs / pAp;
    let rsNew = 0;
    for (let i = 0; i < CODED_BITS; i++) {
      x[i] += alpha * pdir[i];
      rres[i] -= alpha * Ap[i];
      rsNew += rres[i] * rres[i];
    }
    const beta = rsNew / rs;
    rs = rsNew;
    for (let i = 0; i < CODED_BITS; i++) pdir[i] = rres[i] + beta * pdir[i];
  }
  const z = new Float64Array(CODED_BITS);
  for (let i = 0; i < CODED_BITS; i++) z[i] = x[i] * math.sqrt(diag[i]);
  return z;
}
