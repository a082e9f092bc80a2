/** Soft decoding of a weak registered residual: the joint least-squares estimate and the reweighted layer sum. */
import { pixelTaps, smoothCells } from './cell-decode';
import { Box, cropPlane } from './content-box';
import { JointOperator, jointOperatorKernel } from './decode-kernel';
import { FIR_RADIUS } from './fir';
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

/** The box of the pixels whose residual is not NaN, grown by FIR_RADIUS within the plane (null: none). */
export function residualBox(r: Float32Array, w: number, h: number): Box | null {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      if (r[row + x] !== r[row + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  if (x1 < 0) return null;
  x0 = math.max(0, x0 - FIR_RADIUS);
  y0 = math.max(0, y0 - FIR_RADIUS);
  x1 = math.min(w - 1, x1 + FIR_RADIUS);
  y1 = math.min(h - 1, y1 + FIR_RADIUS);
  return { x0, y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

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
  // Only the box around the pixels with a residual takes part, grown by the filter's reach: outside it every pixel
  // has no cell and a weight of 0, and the filter's zero border falls on the same pixels inside the box (it holds the
  // image's border wherever a valid pixel is within reach of it), so the estimate is the same to the bit. A small
  // original registered on part of a large copy (a page around a pasted picture, or an unrelated photo checked
  // against it) leaves most of the copy's working plane outside (a 4 MP copy of a 0.3 MP original: 17 passes over
  // 4 MP instead of about 0.4).
  const box = residualBox(r0, w, h);
  if (!box) return null;
  if (box.w < w || box.h < h) {
    const plane = (d: Float32Array): Float32Array => cropPlane({ w, h, d }, box).d;
    return jointSoft(layers, amps, plane(qx), plane(qy), plane(r0), fir, box.w, box.h);
  }
  const n = w * h;
  const valid = new Uint8Array(n);
  let cnt = 0;
  for (let k = 0; k < n; k++) if (r0[k] === r0[k]) { valid[k] = 1; cnt++; }
  if (cnt < 256) return null;
  // the operator's loops run over every pixel 17 times: in WebAssembly (decode-kernel.ts; the same operations in the
  // same order as the JavaScript loops they replaced, so the same estimate to the bit). Its pixel arrays are written
  // straight into the kernel's memory.
  const op = jointOperatorKernel(w, h, layers.map((L) => ({ nx: L.nx, cells: L.nx * L.ny })), fir, CODED_BITS);
  try {
    const joint = op.layers;
    layers.forEach((L, l) => {
      pixelTaps(L.nx, L.ny, qx, qy, valid, joint[l]);
      joint[l].bit.set(L.bit);
      // per-cell coefficient (relative embedding amplitude x chip), with the embedder's per-layer energy split
      const a = amps[l];
      let ms = 0;
      for (let c = 0; c < a.length; c++) ms += a[c] * a[c];
      const g = math.sqrt((l === 0 ? 0.4 : 0.6) / (ms / a.length));
      const cf = joint[l].cf;
      for (let c = 0; c < a.length; c++) cf[c] = a[c] * g * L.chip[c];
    });
    // per-pixel weight: inverse local residual variance (fine cells, smoothed)
    const L0 = layers[0];
    const t0 = joint[0];
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
    const W = op.W;
    W.fill(0);
    for (let k = 0; k < n; k++) {
      if (!valid[k]) continue;
      const c = t0.c[k] + (t0.fx[k] >= 0.5 ? 1 : 0) + (t0.fy[k] >= 0.5 ? L0.nx : 0);
      W[k] = 1 / (math.max(0, sm[c]) + 0.5);
    }
    return solve(op, rr);
  } finally {
    op.release();
  }
}

/** The conjugate-gradient solve of jointSoft with its operator, scaled by each bit's information. */
function solve(op: JointOperator, rr: Float32Array): Float64Array | null {
  const W = op.W;
  // rhs and the per-bit information (diagonal) for the final scaling
  const bvec = op.rhs(rr);
  const diag = new Float64Array(CODED_BITS);
  // diagonal estimate: energy of each bit's template, computed without the cross terms (squared coefficients)
  for (const { nx, bit, cf, c: cc, fx, fy } of op.layers) {
    for (let k = 0; k < cc.length; k++) {
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
    const out = op.apply(sv);
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
