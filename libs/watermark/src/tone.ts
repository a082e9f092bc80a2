/**
 * Per-channel tone curve (issue 16, third pass). Contrast, brightness and gamma edits are one monotone curve T applied
 * to R, G and B, clipped to 0…255; the extractor reads luma, which libvips computes in linear light
 * (Y = 0.2126 R + 0.7152 G + 0.0722 B on linearised values, gamma-encoded again). A curve fitted on luma alone cannot
 * predict the luma of a picture whose channels clip separately (a dark brown pixel keeps its red and loses its green
 * and blue), and it cannot say which pixels lost the mark: where a channel is clipped the mark added to it is gone.
 * This module fits T (33 knots, every 8 levels) from the registered pair by Gauss–Newton on the luma error, predicts
 * the edited original's luma, and the local gain of the mark (d luma / d mark, the mark being added equally to the
 * three channels), which is 0 where every channel clipped.
 * Below it, the photometric fits of registered decoding: the luma LUT (every extraction with the original) and the
 * tone-curve fit on the registered pair, used when the edit clipped part of the picture.
 */

import { Plane, resize, sampleCubicOrNaN, solve } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Original colour channels at the extractor's working scale (0…255). */
export interface RgbPlanes {
  w: number;
  h: number;
  r: Float32Array;
  g: Float32Array;
  b: Float32Array;
}

/** Levels between two knots of the curve. */
export const TONE_STEP = 8;
const STEP = TONE_STEP;
export const TONE_KNOTS = 256 / STEP + 1;
const WR = 0.2126;
const WG = 0.7152;
const WB = 0.0722;

/** sRGB decoding (0…255 → linear 0…1) and its derivative, tabulated every 1/4 level. */
const LIN_RES = 4;
const LIN = new Float64Array(256 * LIN_RES + 2);
const DLIN = new Float64Array(256 * LIN_RES + 2);
for (let i = 0; i < LIN.length; i++) {
  const v = math.min(255, i / LIN_RES) / 255;
  LIN[i] = v <= 0.04045 ? v / 12.92 : math.pow((v + 0.055) / 1.055, 2.4);
  DLIN[i] = (v <= 0.04045 ? 1 / 12.92 : (2.4 / 1.055) * math.pow((v + 0.055) / 1.055, 1.4)) / 255;
}
/** sRGB encoding (linear 0…1 → 0…255) and its derivative, tabulated on a square-root grid (steep near black). */
const ENC_N = 4096;
const ENC = new Float64Array(ENC_N + 2);
const DENC = new Float64Array(ENC_N + 2);
for (let i = 0; i < ENC.length; i++) {
  const s = math.min(1, i / ENC_N);
  const y = s * s;
  ENC[i] = 255 * (y <= 0.0031308 ? 12.92 * y : 1.055 * math.pow(y, 1 / 2.4) - 0.055);
  DENC[i] = 255 * (y <= 0.0031308 ? 12.92 : (1.055 / 2.4) * math.pow(math.max(y, 1e-9), 1 / 2.4 - 1));
}

function lin(t: number): number {
  const x = (t < 0 ? 0 : t > 255 ? 255 : t) * LIN_RES;
  const i = math.floor(x);
  return LIN[i] + (LIN[i + 1] - LIN[i]) * (x - i);
}
function dlin(t: number): number {
  if (t <= 0 || t >= 255) return 0; // clipped: the output no longer follows the input
  return DLIN[math.round(t * LIN_RES)];
}
function enc(y: number): number {
  const x = math.sqrt(y < 0 ? 0 : y > 1 ? 1 : y) * ENC_N;
  const i = math.floor(x);
  return ENC[i] + (ENC[i + 1] - ENC[i]) * (x - i);
}
function denc(y: number): number {
  return DENC[math.round(math.sqrt(y < 0 ? 0 : y > 1 ? 1 : y) * ENC_N)];
}

function curveAt(t: Float64Array, v: number): number {
  const x = (v < 0 ? 0 : v > 255.999 ? 255.999 : v) / STEP;
  const j = math.floor(x);
  return t[j] + (t[j + 1] - t[j]) * (x - j);
}
function slopeAt(t: Float64Array, v: number): number {
  const j = math.floor((v < 0 ? 0 : v > 255.999 ? 255.999 : v) / STEP);
  return (t[j + 1] - t[j]) / STEP;
}

/** Predicted luma of the edited pixel (r, g, b) through curve t. */
export function toneLuma(t: Float64Array, r: number, g: number, b: number): number {
  return enc(WR * lin(curveAt(t, r)) + WG * lin(curveAt(t, g)) + WB * lin(curveAt(t, b)));
}

/** Pool-adjacent-violators: the least-squares non-decreasing sequence (a tone curve does not invert). */
function isotonic(t: Float64Array): void {
  const n = t.length;
  const val = new Float64Array(n);
  const len = new Int32Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) {
    val[top] = t[i];
    len[top] = 1;
    top++;
    while (top > 1 && val[top - 2] > val[top - 1]) {
      const l = len[top - 2] + len[top - 1];
      val[top - 2] = (val[top - 2] * len[top - 2] + val[top - 1] * len[top - 1]) / l;
      len[top - 2] = l;
      top--;
    }
  }
  let i = 0;
  for (let s = 0; s < top; s++) for (let k = 0; k < len[s]; k++) t[i++] = val[s];
}

/**
 * Fits the curve (knots at 0, 8, …, 256) to samples of original colour (sr, sg, sb) and edited luma si, starting
 * from `init` (the luma curve). Gauss–Newton with a small second-difference penalty (knots without samples follow
 * their neighbours), then made non-decreasing. Returns the knots, or null.
 */
export function fitTone(sr: Float32Array, sg: Float32Array, sb: Float32Array, si: Float32Array, init: Float64Array): Float64Array | null {
  const K = TONE_KNOTS;
  const n = si.length;
  if (n < 4 * K) return null;
  const t = Float64Array.from(init);
  const A = new Float64Array(K * K);
  const rhs = new Float64Array(K);
  const jr = new Float64Array(6);
  const ji = new Int32Array(6);
  for (let it = 0; it < 5; it++) {
    A.fill(0);
    rhs.fill(0);
    for (let s = 0; s < n; s++) {
      let y = 0;
      let m = 0;
      for (let c = 0; c < 3; c++) {
        const v = c === 0 ? sr[s] : c === 1 ? sg[s] : sb[s];
        const w = c === 0 ? WR : c === 1 ? WG : WB;
        const x = (v < 0 ? 0 : v > 255.999 ? 255.999 : v) / STEP;
        const j = math.floor(x);
        const f = x - j;
        const tv = t[j] + (t[j + 1] - t[j]) * f;
        y += w * lin(tv);
        const d = w * dlin(tv);
        ji[m] = j;
        jr[m++] = d * (1 - f);
        ji[m] = j + 1;
        jr[m++] = d * f;
      }
      const de = denc(y);
      const e = si[s] - enc(y);
      for (let a = 0; a < 6; a++) {
        const ga = jr[a] * de;
        if (ga === 0) continue;
        rhs[ji[a]] += ga * e;
        for (let b = 0; b < 6; b++) A[ji[a] * K + ji[b]] += ga * jr[b] * de;
      }
    }
    let tr = 0;
    for (let i = 0; i < K; i++) tr += A[i * K + i];
    const lam = (1e-3 * tr) / K + 1e-6;
    // second-difference penalty on the knots themselves (the step is solved for the penalised objective)
    for (let i = 1; i < K - 1; i++) {
      const idx = [i - 1, i, i + 1];
      const co = [1, -2, 1];
      const dd = t[i - 1] - 2 * t[i] + t[i + 1];
      for (let a = 0; a < 3; a++) {
        rhs[idx[a]] -= lam * co[a] * dd;
        for (let b = 0; b < 3; b++) A[idx[a] * K + idx[b]] += lam * co[a] * co[b];
      }
    }
    for (let i = 0; i < K; i++) A[i * K + i] += 1e-6 * (tr / K) + 1e-9;
    const step = solve(A, rhs, K);
    if (!step) break;
    // a full Gauss–Newton step can overshoot across a clipped end (where the gradient vanishes): halve it until the
    // penalised error drops, else stop at the current curve
    const before = objective(t, lam, sr, sg, sb, si);
    const trial = new Float64Array(K);
    let f = 1;
    let taken = false;
    for (let h = 0; h < 5 && !taken; h++, f /= 2) {
      for (let i = 0; i < K; i++) trial[i] = t[i] + f * step[i];
      // projected: where samples are few the free curve turns back down, which no tone edit does
      isotonic(trial);
      if (objective(trial, lam, sr, sg, sb, si) < before) taken = true;
    }
    if (!taken) break;
    let big = 0;
    for (let i = 0; i < K; i++) {
      big = math.max(big, math.abs(trial[i] - t[i]));
      t[i] = trial[i];
    }
    if (big < 0.05) break;
  }
  for (let i = 0; i < K; i++) t[i] = t[i] < -64 ? -64 : t[i] > 320 ? 320 : t[i];
  isotonic(t);
  return t;
}

function sse(t: Float64Array, sr: Float32Array, sg: Float32Array, sb: Float32Array, si: Float32Array): number {
  let e2 = 0;
  for (let s = 0; s < si.length; s++) {
    const e = si[s] - toneLuma(t, sr[s], sg[s], sb[s]);
    e2 += e * e;
  }
  return e2;
}

/** Half the squared luma error plus the second-difference penalty that the Gauss–Newton steps minimise. */
function objective(t: Float64Array, lam: number, sr: Float32Array, sg: Float32Array, sb: Float32Array, si: Float32Array): number {
  let pen = 0;
  for (let i = 1; i < t.length - 1; i++) {
    const dd = t[i - 1] - 2 * t[i] + t[i + 1];
    pen += dd * dd;
  }
  return 0.5 * sse(t, sr, sg, sb, si) + 0.5 * lam * pen;
}

/**
 * The edited original's luma and the mark's local gain (d luma / d mark, the mark added equally to R, G and B) over
 * the whole original plane.
 */
export function predictTone(rgb: RgbPlanes, t: Float64Array): { p: Float32Array; gain: Float32Array } {
  const n = rgb.w * rgb.h;
  const p = new Float32Array(n);
  const gain = new Float32Array(n);
  const { r, g, b } = rgb;
  for (let k = 0; k < n; k++) {
    const tr = curveAt(t, r[k]);
    const tg = curveAt(t, g[k]);
    const tb = curveAt(t, b[k]);
    const y = WR * lin(tr) + WG * lin(tg) + WB * lin(tb);
    p[k] = enc(y);
    gain[k] = denc(y) * (WR * dlin(tr) * slopeAt(t, r[k]) + WG * dlin(tg) * slopeAt(t, g[k]) + WB * dlin(tb) * slopeAt(t, b[k]));
  }
  return { p, gain };
}

/** Photometric LUT (64 bins, interpolated) mapping predicted values onto inspected values. */
export function fitLut(P: Float32Array, I: Float32Array): Float64Array | null {
  const bins = 64;
  const bs = new Float64Array(bins);
  const bc = new Float64Array(bins);
  for (let k = 0; k < P.length; k++) {
    const o = P[k];
    if (num.isNaN(o)) continue;
    const bin = math.min(bins - 1, math.max(0, math.floor((o / 256) * bins)));
    bs[bin] += I[k];
    bc[bin] += 1;
  }
  const lut = new Float64Array(bins).fill(num.NaN);
  for (let b = 0; b < bins; b++) if (bc[b] >= 4) lut[b] = bs[b] / bc[b];
  let last = -1;
  for (let b = 0; b < bins; b++) {
    if (num.isNaN(lut[b])) continue;
    if (last < 0) for (let j = 0; j < b; j++) lut[j] = lut[b];
    else for (let j = last + 1; j < b; j++) lut[j] = lut[last] + ((lut[b] - lut[last]) * (j - last)) / (b - last);
    last = b;
  }
  if (last < 0) return null;
  for (let j = last + 1; j < bins; j++) lut[j] = lut[last];
  return lut;
}

export function lutAt(lut: Float64Array, o: number): number {
  const bins = lut.length;
  const t = (o / 256) * bins - 0.5;
  const b0 = math.max(0, math.min(bins - 2, math.floor(t)));
  const f = math.max(0, math.min(1, t - b0));
  return lut[b0] + (lut[b0 + 1] - lut[b0]) * f;
}

/** Share of the compared pixels that the edit clipped (inspected at 0 or 255, original not near it) above which the per-channel tone curve is fitted. */
export const TONE_MIN_CLIPPED = 0.01;
/**
 * Pixels whose mark gain is below this share of the median gain are left out (the others' residual is divided by
 * their gain). Measured on the coffee chain contrast +40 % > crop > mirror V > scale 0.575 > JPEG 66 (soft agreement
 * fine / coarse, first version of the fit): 0.69 / 0.81 leaving out none, 0.69 / 0.82 below 0.3, 0.81 / 0.91 below
 * 0.5, 0.81 / 0.90 below 0.7; the final fit at 0.5: 0.81 / 0.91.
 */
export const TONE_MIN_GAIN = 0.5;

/** Share of the valid pixels clipped by the edit: inspected within 2.5 levels of 0 or 255 where the original is 5 levels or more away (a black frame at 6 that contrast took to 0 counts). */
export function clippedShare(W: Float32Array, I: Float32Array): number {
  let cnt = 0;
  let clipped = 0;
  for (let k = 0; k < W.length; k++) {
    const w = W[k];
    if (w !== w) continue;
    cnt++;
    const v = I[k];
    if ((v <= 2.5 && w >= 5) || (v >= 252.5 && w <= 250)) clipped++;
  }
  return cnt ? clipped / cnt : 0;
}

/** Median gain of the pixels that still carry the mark (gain above 0.1; a black frame clipped to 0 is most of its picture). */
export function typicalGain(x: Float32Array): number {
  const v: number[] = [];
  for (let k = 0; k < x.length; k++) if (x[k] > 0.1) v.push(x[k]);
  if (!v.length) return 1;
  v.sort((a, b) => a - b);
  return v[v.length >> 1];
}

/**
 * Fits the per-channel tone curve on a grid of inspected pixels (the original's colour sampled where H maps them);
 * kept only when it predicts the inspected luma better than the luma LUT does, judged as it is used: followed by a
 * LUT of its own (registered decoding fits one on whatever predicts the luma). The curve alone can miss the luma by a
 * smooth bias that this LUT takes away: a chain of 5 on the low-key photo (crop, scale, contrast +40 %, JPEG,
 * rotation), registered within 0.2 px, had the curve at 22.7 levels² against the luma LUT's 16.7, and was decoded at
 * 0.50 / 0.54 without the curve; with it, 11.3 levels² once followed by its LUT, and decoded at 0.85 / 0.92 (the
 * mark's local gain leaves out the pixels the contrast step clipped).
 */
export function toneFit(rgb: RgbPlanes, W: Float32Array, I: Float32Array, w: number, h: number, sigma: number, qx: Float32Array, qy: Float32Array, lut1: Float64Array): Float64Array | null {
  const step = math.max(1, math.round(math.sqrt((w * h) / 20_000)));
  // sampled like the luma W: reduced first when H shrinks the original, cubic
  const pr = reducedLikeLuma(rgb.r, rgb, sigma);
  const pg = reducedLikeLuma(rgb.g, rgb, sigma);
  const pb = reducedLikeLuma(rgb.b, rgb, sigma);
  const sr: number[] = [];
  const sg: number[] = [];
  const sb: number[] = [];
  const si: number[] = [];
  let lutErr = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (W[k] !== W[k]) continue;
      const a = qx[k] * pr.w - 0.5;
      const b = qy[k] * pr.h - 0.5;
      sr.push(sampleCubicOrNaN(pr.d, pr.w, pr.h, a, b));
      sg.push(sampleCubicOrNaN(pg.d, pg.w, pg.h, a, b));
      sb.push(sampleCubicOrNaN(pb.d, pb.w, pb.h, a, b));
      si.push(I[k]);
      const e = I[k] - lutAt(lut1, W[k]);
      lutErr += e * e;
    }
  }
  // start from the straight line through the unclipped samples (inspected luma on original luma): a contrast or
  // brightness edit exactly, and away from the clipped ends, where the curve's gradient vanishes
  const m = new Float64Array(5); // count, sum x, sum x^2, sum y, sum xy
  for (let j = 0; j < si.length; j++) {
    if (si[j] <= 2.5 || si[j] >= 252.5) continue;
    const x = 0.2126 * sr[j] + 0.7152 * sg[j] + 0.0722 * sb[j];
    m[0]++;
    m[1] += x;
    m[2] += x * x;
    m[3] += si[j];
    m[4] += x * si[j];
  }
  const den = m[0] * m[2] - m[1] * m[1];
  const slope = den > 0 ? math.max(0.2, math.min(5, (m[0] * m[4] - m[1] * m[3]) / den)) : 1;
  const icpt = m[0] > 0 ? (m[3] - slope * m[1]) / m[0] : 0;
  const init = new Float64Array(TONE_KNOTS);
  for (let j = 0; j < TONE_KNOTS; j++) init[j] = icpt + slope * j * TONE_STEP;
  const inspected = Float32Array.from(si);
  const t = fitTone(Float32Array.from(sr), Float32Array.from(sg), Float32Array.from(sb), inspected, init);
  if (!t) return null;
  const predicted = new Float32Array(si.length);
  for (let j = 0; j < si.length; j++) predicted[j] = toneLuma(t, sr[j], sg[j], sb[j]);
  const after = fitLut(predicted, inspected);
  if (!after) return null;
  let toneErr = 0;
  for (let j = 0; j < si.length; j++) toneErr += (si[j] - lutAt(after, predicted[j])) ** 2;
  return toneErr < lutErr ? t : null;
}

/** A plane of the original's working size, reduced as the luma is when H shrinks the original by more than 1.3. */
export function reducedLikeLuma(d: Float32Array, rgb: RgbPlanes, sigma: number): Plane {
  const src: Plane = { w: rgb.w, h: rgb.h, d };
  return sigma > 1.3 ? resize(src, math.max(8, math.round(rgb.w / sigma)), math.max(8, math.round(rgb.h / sigma))) : src;
}

/** A plane of the original's working size warped onto the inspected pixels like the luma (reduced first when H shrinks it). */
export function warpPlane(d: Float32Array, rgb: RgbPlanes, sigma: number, qx: Float32Array, qy: Float32Array, W: Float32Array): Float32Array {
  const src = reducedLikeLuma(d, rgb, sigma);
  const out = new Float32Array(W.length);
  for (let k = 0; k < W.length; k++) out[k] = W[k] !== W[k] ? num.NaN : sampleCubicOrNaN(src.d, src.w, src.h, qx[k] * src.w - 0.5, qy[k] * src.h - 0.5);
  return out;
}
