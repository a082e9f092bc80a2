/** The FIR filter fitted between the warped original and the inspected image (registered decoding). */
import { solve } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Radius of the filter: 5x5 taps. */
const FIR_R = 2;

/**
 * Least-squares FIR filter (5x5 + bias) mapping the warped original onto the inspected image: it absorbs blur,
 * resampling kernels and JPEG smoothing, so the residual holds the mark and little of the host. Returns null when
 * there are too few samples.
 */
export function fitFir(W: Float32Array, I: Float32Array, w: number, h: number): Float64Array | null {
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
export function firGain(k: Float64Array): number {
  let s = 0;
  for (let t = 0; t < (2 * FIR_R + 1) ** 2; t++) s += k[t];
  return s;
}
/** Below this gain the fitted FIR is not used. */
export const MIN_FIR_GAIN = 0.5;

export function applyFir(W: Float32Array, w: number, h: number, k: Float64Array, flip: boolean): Float32Array {
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
  // the 25 taps unrolled into locals: the filter runs twice per registered decoding over every working pixel (on a
  // 12 MP pair's 782 x 522, 16-26 ms a call with a loop over the taps, 6-8 ms unrolled); the sum is taken in the
  // loop's order, so the results are the same to the bit
  if (S * S !== 25) throw new RangeError('applyFir is unrolled for a 5 x 5 filter');
  const [k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, k17, k18, k19, k20, k21, k22, k23, k24] = coef;
  const [o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15, o16, o17, o18, o19, o20, o21, o22, o23, o24] = offs;
  for (let y = R; y < h - R; y++) {
    for (let x = R; x < w - R; x++) {
      const c = y * w + x;
      const acc =
        0 + k0 * W[c + o0] + k1 * W[c + o1] + k2 * W[c + o2] + k3 * W[c + o3] + k4 * W[c + o4] +
        k5 * W[c + o5] + k6 * W[c + o6] + k7 * W[c + o7] + k8 * W[c + o8] + k9 * W[c + o9] +
        k10 * W[c + o10] + k11 * W[c + o11] + k12 * W[c + o12] + k13 * W[c + o13] + k14 * W[c + o14] +
        k15 * W[c + o15] + k16 * W[c + o16] + k17 * W[c + o17] + k18 * W[c + o18] + k19 * W[c + o19] +
        k20 * W[c + o20] + k21 * W[c + o21] + k22 * W[c + o22] + k23 * W[c + o23] + k24 * W[c + o24];
      out[c] = acc - off * sumK + bias + off;
    }
  }
  return out;
}

/** Pure 2-D correlation (flip = false) or convolution (flip = true) with the FIR taps; borders and NaN give 0. */
export function convolve(x: Float32Array, w: number, h: number, k: Float64Array, flip: boolean): Float32Array {
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
