/**
 * Local tone fit (issue 34): a strong tone curve with a dark vignette multiplies each pixel by a gain that falls
 * from the centre to the corners. One global LUT cannot predict that: it fits the average gain, so the residual the
 * mark is read from holds the rest of the picture (tens of levels in the corners) and the foreign-content mask takes
 * the dark corners for a sticker. Here a smooth gain field (per block of about 1/8 of the longer side, bilinearly
 * interpolated) is fitted between the LUT-mapped original and the inspected image, and the inspected image is
 * divided by it: the vignette is taken out and the mark, which the vignette scaled too, gets back its amplitude.
 * The gain has two parameters per block of thousands of pixels, and the mark is zero-mean on every cell, so the fit
 * cannot take the mark out; it is kept only when it lowers the residual energy clearly (plain edits have no field).
 *
 * Eighth pass: a bilinear field of 8 blocks follows a radial vignette (1 − v·r²) only to about 0.6 % of the gain at
 * v = 0.6, over a block; on a 200-level pixel that is about a level, as much as the mark, and smooth, so it fell on
 * the coarse layer. A polynomial of degree 4 in x and y (15 terms; exact for a quadratic vignette, close for a lens's
 * cos⁴ fall-off) is fitted too, and the field that explains the inspected image better is kept.
 */
import { polyNormalEquations } from './decode-kernel';
import { solve } from './image';
import { fitLut, lutAt } from './tone';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Blocks along the longer side. */
const BLOCKS = 8;
/** The field is used only when it takes away at least this share of the residual energy. */
const MIN_GAIN_ENERGY_DROP = 0.25;
/** An inspected pixel at or above this is saturated: the edit may have clipped it, so it is left out of the fits. */
const SATURATED = 254.5;
/** Pixels the fits and decisions look at (a sample grid). */
const SAMPLES = 40_000;
/** Fields fitted in turn with the LUT: at most this many. */
const MAX_FIELD_FITS = 24;
/** After the first field, one more is fitted while it takes at least this share of the residual energy. */
const FIELD_REFINE_DROP = 0.002;
/**
 * The polynomial is fitted only on planes whose shorter side is at least this many working pixels (8 coarse cells).
 * Across a smaller one its terms vary on the scale of the mark's coarse cells: on a lossless 78 × 30 px crop of a text
 * scan, where the residual is the mark, it took a third of it (5.78 → 3.84 levels²), the coarse layer's part (soft
 * agreement 0.59 / 0.92 → 0.67 / 0.65, no longer detected). A floor on the energy taken (4× the mark's) kept that
 * crop but kept the field off the dark photos' vignettes too, whose residual is small in levels (lost 14 of
 * their 60 vignette copies in a full run).
 */
const POLY_MIN_SIDE = 64;
/** Degree of the polynomial field. */
const POLY_DEGREE = 4;
/** Weight of the prior gain 1 in each block, in pixels of a mid-gray value (a dark or small block keeps gain ~1). */
const PRIOR_PIXELS = 200;

/**
 * Per-pixel gain g with I ≈ g · lut(W), or null when no smooth field explains the inspected image better than the LUT
 * alone by at least `minDrop` of the residual energy. W: the registered original (NaN outside it or where left out).
 */
export function localGain(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array, minDrop = MIN_GAIN_ENERGY_DROP, pixelsPerSample = 1): Float32Array | null {
  const B = math.max(math.ceil(8 / pixelsPerSample), math.ceil(math.max(w, h) / BLOCKS));
  const bx = math.ceil(w / B);
  const by = math.ceil(h / B);
  // the fit and the decision on a sample grid of about 40,000 pixels (this runs on every registered decoding)
  const step = math.max(1, math.floor(math.sqrt((w * h) / SAMPLES)));
  const sIP = new Float64Array(bx * by);
  const sPP = new Float64Array(bx * by);
  let before = 0;
  let n = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (num.isNaN(W[k]) || I[k] >= SATURATED) continue;
      const p = lutAt(lut, W[k]);
      const b = math.floor(y / B) * bx + math.floor(x / B);
      sIP[b] += I[k] * p;
      sPP[b] += p * p;
      before += (I[k] - p) ** 2;
      n++;
    }
  }
  if (n < 1024) return null;
  const prior = (PRIOR_PIXELS / (step * step * pixelsPerSample * pixelsPerSample)) * 128 * 128;
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
  const poly = math.min(w, h) * pixelsPerSample >= POLY_MIN_SIDE ? polynomialField(W, I, w, h, lut, step) : null;
  let after = 0;
  let afterPoly = 0;
  for (let y = 0; y < h; y += step) {
    const row = poly?.row(y);
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (num.isNaN(W[k]) || I[k] >= SATURATED) continue;
      const p = lutAt(lut, W[k]);
      after += (I[k] - at(x, y) * p) ** 2;
      if (row) afterPoly += (I[k] - row(x) * p) ** 2;
    }
  }
  const usePoly = poly !== null && afterPoly < after;
  const best = usePoly ? afterPoly : after;
  if (best >= (1 - minDrop) * before) return null;
  const field = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = usePoly && poly ? poly.row(y) : (x: number): number => at(x, y);
    for (let x = 0; x < w; x++) field[y * w + x] = row(x);
  }
  return field;
}

/**
 * The inspected image divided by the gain field of a vignette, with the LUT that goes with it: null when no field
 * takes MIN_GAIN_ENERGY_DROP of the LUT's residual energy. LUT and field each absorb part of the other, so once a
 * field is found the two are fitted in turn on the sample grid while the field still takes FIELD_REFINE_DROP, then
 * one field over every pixel against the last LUT. Eighth pass: stopping after a second field that had to take 25 %
 * too left half the vignette in the residual after a JPEG 60, whose own noise is then most of it (the astronaut,
 * resize 0.6 > vignette 0.6 > JPEG 60: soft agreement 0.57 / 0.49 → 0.93 / 0.98); on a text scan the two converge
 * slowly (the residual after 2, 6 and 18 turns: 48.5, 28.9 and 23.9 levels²).
 */
export function vignetteField(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): { divided: Float32Array; lut: Float64Array } | null {
  const step = math.max(1, math.floor(math.sqrt((w * h) / SAMPLES)));
  const ws = math.ceil(w / step);
  const hs = math.ceil(h / step);
  const Ws = new Float32Array(ws * hs);
  const Is = new Float32Array(ws * hs);
  for (let y = 0; y < hs; y++) {
    for (let x = 0; x < ws; x++) {
      const k = y * step * w + x * step;
      // a saturated pixel stays out once divided (its value would look unsaturated)
      Ws[y * ws + x] = I[k] >= SATURATED ? num.NaN : W[k];
      Is[y * ws + x] = I[k];
    }
  }
  let l = lut;
  let fits = 0;
  for (; fits < MAX_FIELD_FITS; fits++) {
    const f = localGain(Ws, Is, ws, hs, l, fits === 0 ? MIN_GAIN_ENERGY_DROP : FIELD_REFINE_DROP, step);
    if (!f) break;
    for (let k = 0; k < Is.length; k++) Is[k] /= f[k];
    const next = fitLut(Ws, Is);
    if (!next) break;
    l = next;
  }
  if (fits === 0) return null;
  // the fields' product as one smooth field over every pixel, fitted against the last LUT
  const field = localGain(W, I, w, h, l, 0);
  if (!field) return null;
  const d = new Float32Array(w * h);
  for (let k = 0; k < d.length; k++) d[k] = I[k] / field[k];
  const final = fitLut(W, d);
  return final ? { divided: d, lut: final } : null;
}

/**
 * Least-squares gain polynomial g(u, v) of degree POLY_DEGREE with I ≈ g · lut(W) (u, v: coordinates from the centre,
 * the longer half-side 1), as a function of the row (its coefficients in u computed once per row), or null when the
 * normal equations are singular.
 */
function polynomialField(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array, step: number): { row: (y: number) => (x: number) => number } | null {
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  const sc = 1 / math.max(cx, cy, 1);
  // terms u^i v^j, i + j ≤ degree, indexed by (i, j)
  const idx: number[][] = [];
  let m = 0;
  for (let i = 0; i <= POLY_DEGREE; i++) {
    idx.push([]);
    for (let j = 0; i + j <= POLY_DEGREE; j++) idx[i].push(m++);
  }
  const ti = new Int32Array(m);
  const tj = new Int32Array(m);
  for (let i = 0; i <= POLY_DEGREE; i++) {
    for (let j = 0; i + j <= POLY_DEGREE; j++) {
      ti[idx[i][j]] = i;
      tj[idx[i][j]] = j;
    }
  }
  // 120 products per sample over ~45,000 samples: in WebAssembly (decode-kernel.ts), ~18 ms of a 12 MP extract in JavaScript
  const { A, b } = polyNormalEquations({ W, I, w, h, step, lut, cx, cy, sc, degree: POLY_DEGREE, ti, tj, saturated: SATURATED });
  for (let r = 0; r < m; r++) for (let c = 0; c < r; c++) A[r * m + c] = A[c * m + r];
  const coef = solve(A, b, m);
  if (!coef || coef.some((c) => !num.isFinite(c))) return null;
  return {
    row: (y: number) => {
      const v = (y - cy) * sc;
      // the coefficient of u^i on this row, then Horner in u
      const a = new Float64Array(POLY_DEGREE + 1);
      for (let i = 0; i <= POLY_DEGREE; i++) {
        let t = 0;
        for (let j = POLY_DEGREE - i; j >= 0; j--) t = t * v + coef[idx[i][j]];
        a[i] = t;
      }
      return (x: number) => {
        const u = (x - cx) * sc;
        let g = 0;
        for (let i = POLY_DEGREE; i >= 0; i--) g = g * u + a[i];
        return math.max(0.05, g);
      };
    },
  };
}
