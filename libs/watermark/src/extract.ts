import { checkInput, decodeLuma, decodeRgb, isWatermarkError, LumaPlane } from './codec';
import { HeaderInfo } from './format';
import { applyH, canvasFillRegion, Homography, invertH, Plane, resize, solve } from './image';
import { CODED_BITS, convEncode, decodeSoft, DecodedPayload, INFO_BITS, PAYLOAD_BITS, TAG_BITS, viterbiDecode } from './payload';
import { amplitudeMaps, buildLayers, cellActivity, fineCellSize, gridDims, Layer } from './pattern';
import { featureRegister } from './feature-register';
import { register } from './register';
import { fitTone, predictTone, RgbPlanes, TONE_KNOTS, TONE_STEP } from './tone';
import { DEFAULT_MAX_PIXELS, DetectionEvidence, ExtractOptions, ExtractResult, FoundTransform, WatermarkErrorCode, WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** A check-passing candidate needs at least this confidence to be reported as `detected`. */
export const DETECT_THRESHOLD = 0.2;
/**
 * Decoding attempts of one extraction at most (see README, false-positive argument): 3 layer combinations + 1 joint
 * + 1 reweighted combination (registered), 6 size guesses x 3 combinations (blind), 2 x 3 (edge-weighted blind pass).
 */
export const DECODING_ATTEMPTS = 29;
/** Design bound on a false match per extraction: each attempt passes the 40-bit keyed check with probability 2^-40. */
export const FALSE_MATCH_BOUND = DECODING_ATTEMPTS * 2 ** -TAG_BITS;
/** Registration is trusted above this NCC of the aligned overlap. */
const MIN_ALIGN_NCC = 0.6;
/** Below this alignment NCC the template registration is not trusted and feature matching is tried too. */
const FEATURE_FALLBACK_NCC = 0.95;

/** Per-coded-bit z-scores of one layer. */
function zFromCells(layer: Layer, amp: Float32Array, e: Float32Array, v: Float32Array): Float64Array {
  const soft = new Float64Array(CODED_BITS);
  const vr = new Float64Array(CODED_BITS);
  for (let c = 0; c < e.length; c++) {
    if (!(v[c] > 0)) continue;
    const a = amp[c];
    soft[layer.bit[c]] += (a * layer.chip[c] * e[c]) / v[c];
    vr[layer.bit[c]] += (a * a) / v[c];
  }
  for (let i = 0; i < CODED_BITS; i++) soft[i] = vr[i] > 0 ? soft[i] / math.sqrt(vr[i]) : 0;
  return soft;
}

function smoothCells(x: Float32Array, nx: number, ny: number, r: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let y = 0; y < ny; y++) {
    for (let xx = 0; xx < nx; xx++) {
      let s = 0;
      let n = 0;
      for (let b = math.max(0, y - r); b <= math.min(ny - 1, y + r); b++) {
        for (let a = math.max(0, xx - r); a <= math.min(nx - 1, xx + r); a++) {
          const v = x[b * nx + a];
          if (v >= 0) {
            s += v;
            n++;
          }
        }
      }
      out[y * nx + xx] = n ? s / n : -1;
    }
  }
  return out;
}

interface CellSums {
  p: Float32Array; // sum w*r
  w1: Float32Array; // sum w
  w2: Float32Array; // sum w^2
  r2: Float32Array; // sum w*r^2
}

/** Accumulates bilinear cell projections of values r (NaN = skip) at normalised positions (u[k], v[k]) in [0,1]. */
function accumulate(nx: number, ny: number, u: Float32Array, v: Float32Array, r: Float32Array): CellSums {
  const s: CellSums = { p: new Float32Array(nx * ny), w1: new Float32Array(nx * ny), w2: new Float32Array(nx * ny), r2: new Float32Array(nx * ny) };
  const { p, w1, w2, r2 } = s;
  const count = r.length;
  for (let k = 0; k < count; k++) {
    const val = r[k];
    if (val !== val) continue;
    let fx = u[k] * nx - 0.5;
    let fy = v[k] * ny - 0.5;
    let ix = math.floor(fx);
    let iy = math.floor(fy);
    if (ix < 0) { ix = 0; fx = 0; } else if (ix >= nx - 1) { ix = nx - 2; fx = 1; } else fx -= ix;
    if (iy < 0) { iy = 0; fy = 0; } else if (iy >= ny - 1) { iy = ny - 2; fy = 1; } else fy -= iy;
    const c = iy * nx + ix;
    const vv = val * val;
    const a = (1 - fx) * (1 - fy);
    const b = fx * (1 - fy);
    const cc = (1 - fx) * fy;
    const d = fx * fy;
    p[c] += a * val; w1[c] += a; w2[c] += a * a; r2[c] += a * vv;
    p[c + 1] += b * val; w1[c + 1] += b; w2[c + 1] += b * b; r2[c + 1] += b * vv;
    p[c + nx] += cc * val; w1[c + nx] += cc; w2[c + nx] += cc * cc; r2[c + nx] += cc * vv;
    p[c + nx + 1] += d * val; w1[c + nx + 1] += d; w2[c + nx + 1] += d * d; r2[c + nx + 1] += d * vv;
  }
  return s;
}

/** Bilinear taps of n pixels onto `cells` cell centres (the same convention as `accumulate`). */
function taps(n: number, cells: number): { i0: Int32Array; f: Float32Array } {
  const i0 = new Int32Array(n);
  const f = new Float32Array(n);
  for (let x = 0; x < n; x++) {
    let fx = ((x + 0.5) / n) * cells - 0.5;
    let ix = math.floor(fx);
    if (ix < 0) { ix = 0; fx = 0; } else if (ix >= cells - 1) { ix = cells - 2; fx = 1; } else fx -= ix;
    i0[x] = ix;
    f[x] = fx;
  }
  return { i0, f };
}

/** Bilinear cell means of a whole plane on an nx x ny grid (separable, for blind decoding). */
function cellMeans(d: Float32Array, w: number, h: number, nx: number, ny: number): Float32Array {
  const tx = taps(w, nx);
  const ty = taps(h, ny);
  const p = new Float64Array(nx * ny);
  const wsum = new Float64Array(nx * ny);
  const row = new Float64Array(nx);
  const roww = new Float64Array(nx);
  for (let x = 0; x < w; x++) {
    roww[tx.i0[x]] += 1 - tx.f[x];
    roww[tx.i0[x] + 1] += tx.f[x];
  }
  for (let y = 0; y < h; y++) {
    row.fill(0);
    const base = y * w;
    for (let x = 0; x < w; x++) {
      const v = d[base + x];
      const i = tx.i0[x];
      const f = tx.f[x];
      row[i] += v * (1 - f);
      row[i + 1] += v * f;
    }
    const cy = ty.i0[y];
    const fy = ty.f[y];
    const o0 = cy * nx;
    const o1 = o0 + nx;
    for (let i = 0; i < nx; i++) {
      p[o0 + i] += row[i] * (1 - fy);
      p[o1 + i] += row[i] * fy;
      wsum[o0 + i] += roww[i] * (1 - fy);
      wsum[o1 + i] += roww[i] * fy;
    }
  }
  const m = new Float32Array(nx * ny);
  for (let c = 0; c < m.length; c++) m[c] = wsum[c] > 0 ? p[c] / wsum[c] : 0;
  return m;
}

function decodeLayers(zs: Float64Array[], key: WatermarkKey): DecodedPayload | null {
  const combos: Float64Array[] = [];
  const sum = new Float64Array(CODED_BITS);
  for (const z of zs) for (let i = 0; i < CODED_BITS; i++) sum[i] += z[i];
  combos.push(sum, ...zs);
  let best: DecodedPayload | null = null;
  for (const soft of combos) {
    const d = decodeSoft(soft, key);
    if (d.tagOk && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) break;
  }
  return best;
}

export function confidenceOf(d: DecodedPayload): number {
  return math.max(0, math.min(1, d.agreement));
}

/** Bilinear sample of plane p at index coordinates (x, y); NaN outside. */
function sampleOrNaN(d: Float32Array, w: number, h: number, x: number, y: number): number {
  if (!(x >= 0 && y >= 0 && x <= w - 1 && y <= h - 1)) return num.NaN;
  const x0 = math.min(w - 2, math.floor(x));
  const y0 = math.min(h - 2, math.floor(y));
  const fx = x - x0;
  const fy = y - y0;
  const i = y0 * w + x0;
  const top = d[i] + (d[i + 1] - d[i]) * fx;
  const bot = d[i + w] + (d[i + w + 1] - d[i + w]) * fx;
  return top + (bot - top) * fy;
}

/**
 * Cubic (Catmull-Rom) sample at index coordinates (x, y); NaN outside, bilinear within a pixel of the border.
 * Bilinear interpolation blurs by an amount that depends on the sub-pixel phase, which varies across a rotated or
 * rescaled image: no single FIR filter can undo it, so it stays in the residual as host leakage.
 */
function sampleCubicOrNaN(d: Float32Array, w: number, h: number, x: number, y: number): number {
  if (!(x >= 1 && y >= 1 && x < w - 2 && y < h - 2)) return sampleOrNaN(d, w, h, x, y);
  const x0 = math.floor(x);
  const y0 = math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const wx0 = ((-0.5 * fx + 1) * fx - 0.5) * fx;
  const wx1 = (1.5 * fx - 2.5) * fx * fx + 1;
  const wx2 = ((-1.5 * fx + 2) * fx + 0.5) * fx;
  const wx3 = (0.5 * fx - 0.5) * fx * fx;
  const wy0 = ((-0.5 * fy + 1) * fy - 0.5) * fy;
  const wy1 = (1.5 * fy - 2.5) * fy * fy + 1;
  const wy2 = ((-1.5 * fy + 2) * fy + 0.5) * fy;
  const wy3 = (0.5 * fy - 0.5) * fy * fy;
  let i = (y0 - 1) * w + x0 - 1;
  const r0 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r1 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r2 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r3 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  return wy0 * r0 + wy1 * r1 + wy2 * r2 + wy3 * r3;
}

/** Local scale (original pixels per inspected pixel) of H around the inspected centre. */
function localScale(H: Homography, w: number, h: number): number {
  const cx = w / 2;
  const cy = h / 2;
  const [a0, b0] = applyH(H, cx, cy);
  const [a1, b1] = applyH(H, cx + 1, cy);
  const [a2, b2] = applyH(H, cx, cy + 1);
  return math.sqrt(math.abs((a1 - a0) * (b2 - b0) - (a2 - a0) * (b1 - b0)));
}

const FIR_R = 2;

/**
 * Least-squares FIR filter (5x5 + bias) mapping the warped original onto the inspected image: it absorbs blur,
 * resampling kernels and JPEG smoothing, so the residual holds the mark and little of the host. Returns null when
 * there are too few samples.
 */
function fitFir(W: Float32Array, I: Float32Array, w: number, h: number): Float64Array | null {
  const R = FIR_R;
  const S = 2 * R + 1;
  const n = S * S + 1;
  const A = new Float64Array(n * n);
  const b = new Float64Array(n);
  const row = new Float64Array(n);
  const step = math.max(1, math.round(math.sqrt((w * h) / 16_000)));
  let cnt = 0;
  for (let y = R; y < h - R; y += step) {
    for (let x = R; x < w - R; x += step) {
      let ok = true;
      let j = 0;
      for (let dy = -R; dy <= R && ok; dy++) {
        const base = (y + dy) * w + x;
        for (let dx = -R; dx <= R; dx++) {
          const v = W[base + dx];
          if (num.isNaN(v)) {
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
        const off = i * n;
        for (let k = i; k < n; k++) A[off + k] += ri * row[k];
      }
      cnt++;
    }
  }
  if (cnt < 4 * n) return null;
  for (let i = 0; i < n; i++) for (let k = 0; k < i; k++) A[i * n + k] = A[k * n + i];
  let tr = 0;
  for (let i = 0; i < n - 1; i++) tr += A[i * n + i];
  const ridge = (1e-4 * tr) / (n - 1) + 1e-6;
  for (let i = 0; i < n - 1; i++) A[i * n + i] += ridge;
  return solve(A, b, n);
}

/** Sum of the FIR taps (without the bias): its gain on flat content. */
function firGain(k: Float64Array): number {
  let s = 0;
  for (let t = 0; t < (2 * FIR_R + 1) ** 2; t++) s += k[t];
  return s;
}
/** Below this gain the fitted FIR is not used. */
const MIN_FIR_GAIN = 0.5;

function applyFir(W: Float32Array, w: number, h: number, k: Float64Array, flip: boolean): Float32Array {
  const R = FIR_R;
  const S = 2 * R + 1;
  const out = new Float32Array(w * h).fill(num.NaN);
  const bias = flip ? 0 : k[S * S];
  const off = flip ? 0 : 128;
  const offs = new Int32Array(S * S);
  const coef = new Float64Array(S * S);
  let j = 0;
  for (let dy = -R; dy <= R; dy++) {
    for (let dx = -R; dx <= R; dx++) {
      offs[j] = flip ? -(dy * w + dx) : dy * w + dx;
      coef[j] = k[j];
      j++;
    }
  }
  let sumK = 0;
  for (let t = 0; t < S * S; t++) sumK += coef[t];
  const m = S * S;
  for (let y = R; y < h - R; y++) {
    for (let x = R; x < w - R; x++) {
      const c = y * w + x;
      let acc = 0;
      for (let t = 0; t < m; t++) acc += coef[t] * W[c + offs[t]];
      out[c] = acc - off * sumK + bias + off;
    }
  }
  return out;
}

const FOREIGN_BLOCK = 8;
/** A block is foreign when its mean absolute difference exceeds this many times the median block's, and FOREIGN_FLOOR levels. */
const FOREIGN_FACTOR = 4;
const FOREIGN_FLOOR = 12;

/**
 * Sets to NaN in W the blocks of the inspected image whose content is not the registered original's (mean absolute
 * difference to the photometrically mapped original far above the median block's: a caption, a sticker, a fill far
 * from the content under it), with their neighbours (the anti-aliased seam). Returns the number of blocks left out.
 */
function maskForeign(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): number {
  const B = FOREIGN_BLOCK;
  const bx = math.ceil(w / B);
  const by = math.ceil(h / B);
  const nb = bx * by;
  const cnt = new Float64Array(nb);
  const sumE = new Float64Array(nb);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      if (num.isNaN(W[k])) continue;
      const b = math.floor(y / B) * bx + math.floor(x / B);
      sumE[b] += math.abs(I[k] - lutAt(lut, W[k]));
      cnt[b] += 1;
    }
  }
  const means: number[] = [];
  for (let b = 0; b < nb; b++) if (cnt[b] >= (B * B) / 4) means.push(sumE[b] / cnt[b]);
  if (means.length < 16) return 0;
  means.sort((a, b) => a - b);
  const limit = math.max(FOREIGN_FLOOR, FOREIGN_FACTOR * means[means.length >> 1]);
  const foreign = new Uint8Array(nb);
  let found = 0;
  for (let b = 0; b < nb; b++) {
    if (cnt[b] >= (B * B) / 4 && sumE[b] / cnt[b] > limit) {
      foreign[b] = 1;
      found++;
    }
  }
  if (found === 0) return 0;
  for (let y = 0; y < h; y++) {
    const yb = math.floor(y / B);
    for (let x = 0; x < w; x++) {
      const xb = math.floor(x / B);
      let hit = false;
      for (let dy = -1; dy <= 1 && !hit; dy++) {
        for (let dx = -1; dx <= 1 && !hit; dx++) {
          const yy = yb + dy;
          const xx = xb + dx;
          if (yy >= 0 && yy < by && xx >= 0 && xx < bx && foreign[yy * bx + xx]) hit = true;
        }
      }
      if (hit) W[y * w + x] = num.NaN;
    }
  }
  return found;
}

/** A fill pixel is foreign when the original under it differs from the fill by more than this (mapped through the LUT); above the mark itself (a few levels), which a plain crop of a flat dark area shows against the unmarked original. */
const FILL_MIN_DIFF = 8;
/** Share of the corner regions' pixels over the original that must differ so, for the regions to count as a fill. */
const FILL_MIN_SHARE = 0.2;

/**
 * The canvas an editor filled around a rotated image (any colour): the uniform regions reached from the four corners.
 * Where such a region covers original content (a crop came before the rotation), its pixels are foreign even when
 * their colour is close to the content's, which the block test of maskForeign cannot tell; they are set to NaN in W,
 * with a 2-pixel seam. Returns the number of pixels left out.
 */
function maskCanvasFill(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): number {
  const n = w * h;
  const region = canvasFillRegion(I, w, h);
  const foreign = new Uint8Array(n);
  let found = 0;
  let covered = 0;
  for (let k = 0; k < n; k++) {
    if (!region[k] || num.isNaN(W[k])) continue;
    covered++;
    if (math.abs(I[k] - lutAt(lut, W[k])) > FILL_MIN_DIFF) {
      foreign[k] = 1;
      found++;
    }
  }
  // a fill over content differs from it nearly everywhere; a flat area of the picture itself (a night sky) only
  // where the registration or the LUT is a little off
  if (found < 64 || found < FILL_MIN_SHARE * covered) return 0;
  const R = 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!foreign[y * w + x]) continue;
      for (let yy = math.max(0, y - R); yy <= math.min(h - 1, y + R); yy++) {
        for (let xx = math.max(0, x - R); xx <= math.min(w - 1, x + R); xx++) W[yy * w + xx] = num.NaN;
      }
    }
  }
  return found;
}

/** Photometric LUT (64 bins, interpolated) mapping predicted values onto inspected values. */
function fitLut(P: Float32Array, I: Float32Array): Float64Array | null {
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

function lutAt(lut: Float64Array, o: number): number {
  const bins = lut.length;
  const t = (o / 256) * bins - 0.5;
  const b0 = math.max(0, math.min(bins - 2, math.floor(t)));
  const f = math.max(0, math.min(1, t - b0));
  return lut[b0] + (lut[b0 + 1] - lut[b0]) * f;
}

/** Share of the compared pixels that the edit clipped (inspected at 0 or 255, original not near it) above which the per-channel tone curve is fitted. */
const TONE_MIN_CLIPPED = 0.01;
/**
 * Pixels whose mark gain is below this share of the median gain are left out (the others' residual is divided by
 * their gain). Measured on the coffee chain contrast +40 % > crop > mirror V > scale 0.575 > JPEG 66 (soft agreement
 * fine / coarse, first version of the fit): 0.69 / 0.81 leaving out none, 0.69 / 0.82 below 0.3, 0.81 / 0.91 below
 * 0.5, 0.81 / 0.90 below 0.7; the final fit at 0.5: 0.81 / 0.91.
 */
const TONE_MIN_GAIN = 0.5;

/** Share of the valid pixels clipped by the edit: inspected within 2.5 levels of 0 or 255 where the original is 5 levels or more away (a black frame at 6 that contrast took to 0 counts). */
function clippedShare(W: Float32Array, I: Float32Array): number {
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
function typicalGain(x: Float32Array): number {
  const v: number[] = [];
  for (let k = 0; k < x.length; k++) if (x[k] > 0.1) v.push(x[k]);
  if (!v.length) return 1;
  v.sort((a, b) => a - b);
  return v[v.length >> 1];
}

/**
 * Fits the per-channel tone curve on a grid of inspected pixels (the original's colour sampled where H maps them);
 * kept only when it predicts the inspected luma better than the luma LUT does.
 */
function toneFit(rgb: RgbPlanes, W: Float32Array, I: Float32Array, w: number, h: number, sigma: number, qx: Float32Array, qy: Float32Array, lut1: Float64Array): Float64Array | null {
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
  const fit = fitTone(Float32Array.from(sr), Float32Array.from(sg), Float32Array.from(sb), Float32Array.from(si), init);
  return fit && fit.mse < lutErr / si.length ? fit.t : null;
}

/** A plane of the original's working size, reduced as the luma is when H shrinks the original by more than 1.3. */
function reducedLikeLuma(d: Float32Array, rgb: RgbPlanes, sigma: number): Plane {
  const src: Plane = { w: rgb.w, h: rgb.h, d };
  return sigma > 1.3 ? resize(src, math.max(8, math.round(rgb.w / sigma)), math.max(8, math.round(rgb.h / sigma))) : src;
}

/** A plane of the original's working size warped onto the inspected pixels like the luma (reduced first when H shrinks it). */
function warpPlane(d: Float32Array, rgb: RgbPlanes, sigma: number, qx: Float32Array, qy: Float32Array, W: Float32Array): Float32Array {
  const src = reducedLikeLuma(d, rgb, sigma);
  const out = new Float32Array(W.length);
  for (let k = 0; k < W.length; k++) out[k] = W[k] !== W[k] ? num.NaN : sampleCubicOrNaN(src.d, src.w, src.h, qx[k] * src.w - 0.5, qy[k] * src.h - 0.5);
  return out;
}

/** Diagnostics of the last registered decoding (for the benchmark's probes). */
export interface RegisteredDiag {
  H: Homography;
  scale: number;
  fir: boolean;
  /** Sum of the FIR taps (its gain on flat content). */
  firGain: number;
  zs: Float64Array[];
}
let lastDiag: RegisteredDiag | null = null;
let lastReg: { H: Homography; ncc: number } | null = null;
export function lastRegistration(): { H: Homography; ncc: number } | null {
  return lastReg;
}
export function lastRegisteredDiag(): RegisteredDiag | null {
  return lastDiag;
}

/**
 * Registered decoding: the original is reduced to the inspected scale, warped onto the inspected pixels, passed
 * through a fitted FIR filter and photometric LUT, and subtracted; the residual is matched-filtered with the same
 * FIR kernel and projected on the cells of each layer.
 */
async function registeredDecode(O: LumaPlane, I: LumaPlane, H: Homography, key: WatermarkKey, loadRgb: () => Promise<RgbPlanes | null>): Promise<DecodedPayload | null> {
  const iw = I.width;
  const ih = I.height;
  const n = iw * ih;
  // H maps inspected index coordinates to original index coordinates.
  const sigma = localScale(H, iw, ih);
  let src: Plane = { w: O.width, h: O.height, d: O.data };
  if (sigma > 1.3) src = resize(src, math.max(8, math.round(O.width / sigma)), math.max(8, math.round(O.height / sigma)));
  const rx = src.w / O.width;
  const ry = src.h / O.height;
  const qx = new Float32Array(n);
  const qy = new Float32Array(n);
  const W = new Float32Array(n);
  for (let y = 0; y < ih; y++) {
    for (let x = 0; x < iw; x++) {
      const k = y * iw + x;
      const [a, b] = applyH(H, x, y);
      qx[k] = (a + 0.5) / O.width;
      qy[k] = (b + 0.5) / O.height;
      W[k] = sampleCubicOrNaN(src.d, src.w, src.h, (a + 0.5) * rx - 0.5, (b + 0.5) * ry - 0.5);
    }
  }
  // photometric LUT first (brightness, contrast, gamma, clipping), then the FIR filter, then a final LUT
  let lut1 = fitLut(W, I.data);
  if (!lut1) return null;
  // pixels that show something else than the original (a canvas filled around a rotated crop, a caption, a
  // sticker) would bend the fits below: left out, and the LUT fitted again without them
  const nf = maskForeign(W, I.data, iw, ih, lut1) + maskCanvasFill(W, I.data, iw, ih, lut1);
  if (nf > 0) {
    lut1 = fitLut(W, I.data);
    if (!lut1) return null;
  }
  let P1: Float32Array = new Float32Array(n);
  for (let k = 0; k < n; k++) P1[k] = num.isNaN(W[k]) ? num.NaN : lutAt(lut1, W[k]);
  // an edit that clipped part of the picture: per-channel tone curve and the mark's local gain (tone.ts)
  let gain: Float32Array | null = null;
  if (clippedShare(W, I.data) >= TONE_MIN_CLIPPED) {
    const rgb = await loadRgb();
    const tone = rgb ? toneFit(rgb, W, I.data, iw, ih, sigma, qx, qy, lut1) : null;
    if (rgb && tone) {
      const pg = predictTone(rgb, tone);
      P1 = warpPlane(pg.p, rgb, sigma, qx, qy, W);
      gain = warpPlane(pg.gain, rgb, sigma, qx, qy, W);
    }
  }
  // saturated inspected pixels carry no mark
  const Iu = new Float32Array(I.data);
  for (let k = 0; k < n; k++) if (Iu[k] >= 254.5 || Iu[k] <= 0.5) P1[k] = num.NaN;
  const fitted = fitFir(P1, Iu, iw, ih);
  // an edit keeps flat content flat (the LUT already took the photometry), so a filter whose taps do not sum to
  // about 1 was fitted on too little texture (a crop of mostly flat black); its matched filter would even invert the
  // mark when the sum is negative
  const fir = fitted && firGain(fitted) >= MIN_FIR_GAIN ? fitted : null;
  const P = fir ? applyFir(P1, iw, ih, fir, false) : P1;
  const lut = fitLut(P, I.data);
  if (!lut) return null;
  const gainMed = gain ? typicalGain(gain) : 1;
  let r: Float32Array = new Float32Array(n);
  let absSum = 0;
  let cnt = 0;
  for (let k = 0; k < n; k++) {
    const p = P[k];
    if (num.isNaN(p)) {
      r[k] = num.NaN;
      continue;
    }
    r[k] = I.data[k] - lutAt(lut, p);
    if (gain) {
      const g = gain[k] / gainMed;
      if (!(g >= TONE_MIN_GAIN)) {
        r[k] = num.NaN;
        continue;
      }
      r[k] /= g;
    }
    absSum += math.abs(r[k]);
    cnt++;
  }
  if (cnt < 64) return null;
  const clip = 5 * (absSum / cnt) + 1;
  for (let k = 0; k < n; k++) if (r[k] > clip) r[k] = clip; else if (r[k] < -clip) r[k] = -clip;
  const r0 = r;
  if (fir) r = applyFir(r, iw, ih, fir, true);
  const dims = gridDims(O.fullWidth, O.fullHeight);
  const layers = buildLayers(key, dims);
  const act = cellActivity(O.data, O.width, O.height, dims[0][0], dims[0][1], 1);
  const amps = amplitudeMaps(act, dims);
  const zs = layers.map((layer, l) => {
    const { nx, ny } = layer;
    const s = accumulate(nx, ny, qx, qy, r);
    const e = new Float32Array(nx * ny);
    const lv = new Float32Array(nx * ny).fill(-1);
    for (let c = 0; c < e.length; c++) {
      if (s.w1[c] < 0.5) continue;
      e[c] = s.p[c] / s.w1[c];
      lv[c] = math.max(0, s.r2[c] / s.w1[c] - e[c] * e[c]);
    }
    const sm = smoothCells(lv, nx, ny, 1);
    const v = new Float32Array(nx * ny);
    for (let c = 0; c < e.length; c++) if (s.w1[c] >= 0.5 && sm[c] >= 0) v[c] = ((sm[c] + 0.25) * s.w2[c]) / (s.w1[c] * s.w1[c]);
    return zFromCells(layer, amps[l], e, v);
  });
  lastDiag = { H, scale: sigma, fir: fir !== null, firGain: fitted ? firGain(fitted) : 1, zs };
  const first = decodeLayers(zs, key);
  if (first && confidenceOf(first) >= DETECT_THRESHOLD) return first;
  // weak: joint least-squares estimate of the coded bits (cancels the cross-talk between neighbouring cells and layers)
  const joint = jointSoft(layers, amps, qx, qy, r0, fir, iw, ih);
  let best = first;
  if (joint) {
    const d = decodeSoft(joint, key);
    if (d.tagOk && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) return best;
  }
  // still weak: the layers summed with weights from their own reliability (one more decoding attempt)
  const reweighted = decodeSoft(reweigh(zs), key);
  return reweighted.tagOk && (!best || reweighted.agreement > best.agreement) ? reweighted : best;
}

/**
 * The layers' z-scores summed with weights mean / variance of each layer's agreement with the code word that the
 * plain sum decodes to (the optimal weights for Gaussian observations, estimated). The z-scores of the two layers
 * are not equally calibrated after heavy resampling (the host leakage differs per scale), so their plain sum can
 * decode wrong where a weighted one does not: a scale > crop > rotate > contrast > mirror chain of the rocket
 * decoded with 11 wrong id bits summed, exactly weighted (fine 0.05, coarse 0.02). Even a wrong first code word
 * agrees with most coded bits, so the estimates hold.
 */
function reweigh(zs: Float64Array[]): Float64Array {
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

/** Pure 2-D correlation (flip = false) or convolution (flip = true) with the FIR taps; borders and NaN give 0. */
function convolve(x: Float32Array, w: number, h: number, k: Float64Array, flip: boolean): Float32Array {
  const R = FIR_R;
  const out = new Float32Array(w * h);
  for (let y = R; y < h - R; y++) {
    for (let xx = R; xx < w - R; xx++) {
      const c = y * w + xx;
      let acc = 0;
      let j = 0;
      for (let dy = -R; dy <= R; dy++) {
        for (let dx = -R; dx <= R; dx++) {
          const v = flip ? x[c - dy * w - dx] : x[c + dy * w + dx];
          acc += k[j++] * v;
        }
      }
      out[c] = acc;
    }
  }
  return out;
}

/** Bilinear taps (base cell and fractions) of every pixel on one layer's grid; base -1 = no sample. */
function pixelTaps(nx: number, ny: number, u: Float32Array, v: Float32Array, valid: Uint8Array): { c: Int32Array; fx: Float32Array; fy: Float32Array } {
  const n = u.length;
  const c = new Int32Array(n).fill(-1);
  const fxs = new Float32Array(n);
  const fys = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    if (!valid[k]) continue;
    let fx = u[k] * nx - 0.5;
    let fy = v[k] * ny - 0.5;
    let ix = math.floor(fx);
    let iy = math.floor(fy);
    if (ix < 0) { ix = 0; fx = 0; } else if (ix >= nx - 1) { ix = nx - 2; fx = 1; } else fx -= ix;
    if (iy < 0) { iy = 0; fy = 0; } else if (iy >= ny - 1) { iy = ny - 2; fy = 1; } else fy -= iy;
    c[k] = iy * nx + ix;
    fxs[k] = fx;
    fys[k] = fy;
  }
  return { c, fx: fxs, fy: fys };
}

const JOINT_ITERS = 16;

/**
 * Weighted least-squares estimate of the 330 coded-bit signs from the residual r0 (mark + noise), with the mark modelled
 * as FIR * (sum over both layers of bilinear cells carrying amp * chip * s[bit]); solved by conjugate gradients.
 * Returns z-like soft values (estimate times the square root of the per-bit information).
 */
function jointSoft(
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
  const synth = (sv: Float64Array): Float32Array => {
    const m = new Float32Array(n);
    for (let l = 0; l < layers.length; l++) {
      const { nx, bit } = layers[l];
      const cf = coef[l];
      const { c: cc, fx, fy } = taps[l];
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
      const { nx, bit } = layers[l];
      const cf = coef[l];
      const { c: cc, fx, fy } = taps[l];
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
    const { nx, bit } = layers[l];
    const cf = coef[l];
    const { c: cc, fx, fy } = taps[l];
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

/** Per-pixel weights 1 / (1 + (g / 3)^2), g = largest absolute difference to the 8 neighbours: near 0 on edges. */
const EDGE_T = 3;
function edgeWeights(d: Float32Array, w: number, h: number): Float32Array {
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
          const a = math.abs(d[yy * w + xx] - v);
          if (a > g) g = a;
        }
      }
      const t = g / EDGE_T;
      out[k] = 1 / (1 + t * t);
    }
  }
  return out;
}

/** Blind decoding: the inspected image is assumed to be the whole marked image, possibly rescaled. */
function blindDecode(I: LumaPlane, key: WatermarkKey, robust: boolean): DecodedPayload | null {
  const guesses = robust ? [1, 0.5] : [1, 0.5, 0.25, 0.75, 2 / 3, 1 / 3];
  const pw = robust ? edgeWeights(I.data, I.width, I.height) : null;
  const wI = pw ? pw.map((wk, k) => wk * I.data[k]) : null;
  const seen = new Set<string>();
  let best: DecodedPayload | null = null;
  for (const g of guesses) {
    const dims = gridDims(math.round(I.fullWidth / g), math.round(I.fullHeight / g));
    const id = JSON.stringify(dims);
    if (seen.has(id)) continue;
    seen.add(id);
    if (dims[0][0] > I.width || dims[0][1] > I.height) continue; // cells below one pixel: nothing survives
    const layers = buildLayers(key, dims);
    const act = cellActivity(I.data, I.width, I.height, dims[0][0], dims[0][1], 1);
    const amps = amplitudeMaps(act, dims);
    const zs = layers.map((layer, l) => {
      const { nx, ny } = layer;
      const m = cellMeans(wI ?? I.data, I.width, I.height, nx, ny);
      if (pw) {
        // edge-weighted cell means: ink strokes and other edges hardly count, flat paper carries the mark
        const mw = cellMeans(pw, I.width, I.height, nx, ny);
        for (let c = 0; c < m.length; c++) m[c] = mw[c] > 1e-3 ? m[c] / mw[c] : 0;
      }
      const e = new Float32Array(nx * ny);
      const e2 = new Float32Array(nx * ny);
      for (let y = 0; y < ny; y++) {
        for (let x = 0; x < nx; x++) {
          const c = y * nx + x;
          let acc = 0;
          let cntN = 0;
          if (x > 0) { acc += m[c - 1]; cntN++; }
          if (x < nx - 1) { acc += m[c + 1]; cntN++; }
          if (y > 0) { acc += m[c - nx]; cntN++; }
          if (y < ny - 1) { acc += m[c + nx]; cntN++; }
          e[c] = m[c] - acc / cntN;
          e2[c] = e[c] * e[c];
        }
      }
      const sm = smoothCells(e2, nx, ny, 1);
      const v = new Float32Array(nx * ny);
      for (let c = 0; c < v.length; c++) v[c] = sm[c] + 0.5;
      return zFromCells(layer, amps[l], e, v);
    });
    const d = decodeLayers(zs, key);
    if (d && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) break;
  }
  return best;
}

function result(d: DecodedPayload | null, method: 'registered' | 'blind', transform?: FoundTransform): ExtractResult | null {
  if (!d || !d.tagOk) return null;
  const confidence = confidenceOf(d);
  const evidence: DetectionEvidence = {
    payloadBits: PAYLOAD_BITS,
    checkBits: TAG_BITS,
    checkBitsMatched: TAG_BITS,
    codedBits: CODED_BITS,
    codedBitsAgreeing: d.codedAgree,
    softAgreement: confidence,
    threshold: DETECT_THRESHOLD,
    decodingAttempts: DECODING_ATTEMPTS,
    chanceBound: FALSE_MATCH_BOUND,
    ...(transform ? { transform } : {}),
  };
  return { status: confidence >= DETECT_THRESHOLD ? 'detected' : 'inconclusive', payload: d.payload, confidence, method, evidence };
}

/**
 * The edit registration found, in full-resolution terms. H maps inspected working pixels to original working
 * pixels; the original was decoded at scale `so`, the inspected at `si`.
 */
export function describeTransform(H: Homography, O: { width: number; height: number }, I: { width: number; height: number }, so: number, si: number): FoundTransform {
  // linear part of original -> inspected at the centre of the inspected image (y axis down, as stored)
  const cx = I.width / 2;
  const cy = I.height / 2;
  const [x0, y0] = applyH(H, cx, cy);
  const [x1, y1] = applyH(H, cx + 1, cy);
  const [x2, y2] = applyH(H, cx, cy + 1);
  // A: inspected -> original; B = A^-1: original -> inspected
  const a = x1 - x0;
  const b = x2 - x0;
  const c = y1 - y0;
  const d = y2 - y0;
  const det = a * d - b * c;
  let B = [d / det, -b / det, -c / det, a / det];
  const mirrored = det < 0;
  // a mirror image: B = B' * diag(-1, 1), the original mirrored left-right first
  if (mirrored) B = [-B[0], B[1], -B[2], B[3]];
  // on screen (y down) a counter-clockwise turn by t maps (1, 0) to (cos t, -sin t)
  let rotationDeg = math.round((math.atan2(-B[2], B[0]) * 1800) / math.PI) / 10;
  if (rotationDeg <= -180) rotationDeg += 360;
  const scale = math.sqrt(math.abs(1 / det)) * (so / si);
  // share of the original (sampled on a grid) that lands inside the inspected image
  const Hi = invertH(H);
  let inside = 0;
  const n = 48;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const [u, v] = applyH(Hi, ((i + 0.5) / n) * O.width, ((j + 0.5) / n) * O.height);
      if (u >= 0 && v >= 0 && u <= I.width && v <= I.height) inside++;
    }
  }
  const perspective = math.abs(H[6]) * I.width + math.abs(H[7]) * I.height > 0.01;
  return { rotationDeg, scale: math.round(scale * 1000) / 1000, mirrored, originalAreaVisible: math.round((inside / (n * n)) * 100) / 100, perspective };
}

/** Working scale that brings the original's fine cells to about 4 pixels. */
function workScale(h: HeaderInfo): number {
  return math.min(1, 4 / fineCellSize(h.width, h.height));
}

export async function extractImage(inspected: Buffer, original: Buffer | null, options: ExtractOptions): Promise<ExtractResult> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  let ih: HeaderInfo;
  try {
    ih = checkInput(inspected, maxPixels);
  } catch (e) {
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
  let registeredTried = false;
  let weak: ExtractResult | null = null;
  try {
    if (original) {
      let oh: HeaderInfo;
      try {
        oh = checkInput(original, maxPixels);
      } catch (e) {
        if (isWatermarkError(e) && e.code !== WatermarkErrorCode.CORRUPT_IMAGE) return { status: 'unsupported', confidence: 0, method: 'none' };
        return { status: 'error', confidence: 0, method: 'none' };
      }
      const s = workScale(oh);
      const maxInspectedScale = math.min(s, math.sqrt(8_000_000 / (ih.width * ih.height)));
      let O: LumaPlane;
      try {
        O = await decodeLuma(original, oh, s);
      } catch {
        return { status: 'error', confidence: 0, method: 'none' };
      }
      const si = math.min(1, maxInspectedScale);
      const I = await decodeLuma(inspected, ih, si);
      const planeO = { w: O.width, h: O.height, d: O.data };
      const planeI = { w: I.width, h: I.height, d: I.data };
      let reg = register(planeO, planeI);
      if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
        // the template search found nothing convincing: local features (mirror + any angle + scale + crop)
        const byFeatures = await featureRegister(planeO, planeI).catch(() => null);
        if (byFeatures && (!reg || byFeatures.ncc > reg.ncc)) reg = byFeatures;
      }
      if (!reg || reg.raw < FEATURE_FALLBACK_NCC) {
        // neither found a convincing geometry: the template search again over the whole circle (slow, so only here)
        const swept = register(planeO, planeI, true);
        if (swept && (!reg || swept.ncc > reg.ncc)) reg = swept;
      }
      lastReg = reg;
      if (reg && reg.ncc >= MIN_ALIGN_NCC) {
        registeredTried = true;
        const loadRgb = (): Promise<RgbPlanes | null> => decodeRgb(original, oh, s).catch(() => null);
        const r = result(await registeredDecode(O, I, reg.H, options.key, loadRgb), 'registered', describeTransform(reg.H, O, I, s, si));
        if (r && r.status === 'detected') return r;
        weak = r;
      }
    }
    const blindScale = math.min(1, math.sqrt(2_000_000 / (ih.width * ih.height)));
    const Ib = await decodeLuma(inspected, ih, blindScale);
    let bd = blindDecode(Ib, options.key, false);
    if (!bd || confidenceOf(bd) < DETECT_THRESHOLD) {
      // text scans and other edge-dominated images: edge-weighted cell means (scale guesses 1 and 1/2 only)
      const rb = blindDecode(Ib, options.key, true);
      if (rb && (!bd || rb.agreement > bd.agreement)) bd = rb;
    }
    const r = result(bd, 'blind');
    if (r && (r.status === 'detected' || !weak || r.confidence > weak.confidence)) return r;
    if (weak) return weak;
    return { status: 'not_detected', confidence: 0, method: registeredTried ? 'registered' : 'blind' };
  } catch (e) {
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
}
