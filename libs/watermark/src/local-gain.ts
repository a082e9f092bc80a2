/**
 * Local tone fit (issue 34): a strong tone curve with a dark vignette multiplies each pixel by a gain that falls
 * from the centre to the corners. One global LUT cannot predict that: it fits the average gain, so the residual the
 * mark is read from holds the rest of the picture (tens of levels in the corners) and the foreign-content mask takes
 * the dark corners for a sticker. Here a smooth gain field (per block of about 1/8 of the longer side, bilinearly
 * interpolated) is fitted between the LUT-mapped original and the inspected image, and the inspected image is
 * divided by it: the vignette is taken out and the mark, which the vignette scaled too, gets back its amplitude.
 * The gain has two parameters per block of thousands of pixels, and the mark is zero-mean on every cell, so the fit
 * cannot take the mark out; it is kept only when it lowers the residual energy clearly (plain edits have no field).
 */
import { lutAt } from './tone';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Blocks along the longer side. */
const BLOCKS = 8;
/** The field is used only when it takes away at least this share of the residual energy. */
const MIN_GAIN_ENERGY_DROP = 0.25;
/** Weight of the prior gain 1 in each block, in pixels of a mid-gray value (a dark or small block keeps gain ~1). */
const PRIOR_PIXELS = 200;

/**
 * Per-pixel gain g with I ≈ g · lut(W), or null when no smooth field explains the inspected image clearly better
 * than the LUT alone. W: the registered original (NaN outside it or where left out).
 */
export function localGain(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): Float32Array | null {
  const B = math.max(8, math.ceil(math.max(w, h) / BLOCKS));
  const bx = math.ceil(w / B);
  const by = math.ceil(h / B);
  // the fit and the decision on a sample grid of about 40,000 pixels (this runs on every registered decoding)
  const step = math.max(1, math.floor(math.sqrt((w * h) / 40_000)));
  const sIP = new Float64Array(bx * by);
  const sPP = new Float64Array(bx * by);
  let before = 0;
  let n = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (num.isNaN(W[k]) || I[k] >= 254.5) continue;
      const p = lutAt(lut, W[k]);
      const b = math.floor(y / B) * bx + math.floor(x / B);
      sIP[b] += I[k] * p;
      sPP[b] += p * p;
      before += (I[k] - p) ** 2;
      n++;
    }
  }
  if (n < 1024) return null;
  const prior = (PRIOR_PIXELS / (step * step)) * 128 * 128;
  const g = new Float64Array(bx * by);
  for (let b = 0; b < g.length; b++) g[b] = (sIP[b] + prior) / (sPP[b] + prior);
  // block centres at ((i + 0.5) B): bilinear between the four nearest, clamped at the edges
  const at = (x: number, y: number): number => {
    const ty = math.max(0, math.min(by - 1, (y + 0.5) / B - 0.5));
    const tx = math.max(0, math.min(bx - 1, (x + 0.5) / B - 0.5));
    const y0 = math.max(0, math.min(by - 2, math.floor(ty)));
    const x0 = math.max(0, math.min(bx - 2, math.floor(tx)));
    const y1 = math.min(by - 1, y0 + 1);
    const x1 = math.min(bx - 1, x0 + 1);
    const fy = math.min(1, ty - y0);
    const fx = math.min(1, tx - x0);
    const top = g[y0 * bx + x0] + (g[y0 * bx + x1] - g[y0 * bx + x0]) * fx;
    const bot = g[y1 * bx + x0] + (g[y1 * bx + x1] - g[y1 * bx + x0]) * fx;
    return math.max(0.05, top + (bot - top) * fy);
  };
  let after = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (num.isNaN(W[k]) || I[k] >= 254.5) continue;
      after += (I[k] - at(x, y) * lutAt(lut, W[k])) ** 2;
    }
  }
  if (after >= (1 - MIN_GAIN_ENERGY_DROP) * before) return null;
  const field = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) field[y * w + x] = at(x, y);
  return field;
}
