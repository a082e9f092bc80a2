/** The FIR filter fitted between the warped original and the inspected image (registered decoding). */
import { applyFirKernel, firNormalEquations, firTapOffsets } from './decode-kernel';
import { solve } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Radius of the filter: 5x5 taps. */
export const FIR_RADIUS = 2;

/**
 * Least-squares FIR filter (5x5 + bias) mapping the warped original onto the inspected image: it absorbs blur,
 * resampling kernels and JPEG smoothing, so the residual holds the mark and little of the host. Returns null when
 * there are too few samples.
 */
export function fitFir(W: Float32Array, I: Float32Array, w: number, h: number): Float64Array | null {
  const R = FIR_RADIUS;
  const S = 2 * R + 1;
  const n = S * S + 1;
  if (n !== 26) throw new RangeError('the FIR kernels of decode-kernel.ts are written for a 5 x 5 filter');
  const step = math.max(1, math.round(math.sqrt((w * h) / 16_000)));
  // ~16,000 samples of 351 products each: in WebAssembly (decode-kernel.ts), the same sums as the JavaScript loop
  const { A, b, count: cnt } = firNormalEquations(W, I, w, h, step);
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
  for (let t = 0; t < (2 * FIR_RADIUS + 1) ** 2; t++) s += k[t];
  return s;
}
/** Below this gain the fitted FIR is not used. */
export const MIN_FIR_GAIN = 0.5;

export function applyFir(W: Float32Array, w: number, h: number, k: Float64Array, flip: boolean): Float32Array {
  const R = FIR_RADIUS;
  const S = 2 * R + 1;
  const bias = flip ? 0 : k[S * S];
  const off = flip ? 0 : 128;
  const offs = firTapOffsets(w, flip);
  const coef = k.slice(0, S * S);
  let sumK = 0;
  for (let t = 0; t < S * S; t++) sumK += coef[t];
  // every working pixel, twice per registered decoding: in WebAssembly (decode-kernel.ts; the taps summed from 0 in
  // this order, so the results are the same to the bit as the unrolled JavaScript loop it replaced)
  return applyFirKernel(W, w, h, coef, offs, off, sumK, bias);
}
