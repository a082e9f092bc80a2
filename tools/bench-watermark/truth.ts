/* Dev probe (replay.ts, REPLAY_TRUTH=1): the true geometry of a replayed attack, to tell a wrong registration from a
 * mark the attack destroyed. The same attack, with the same seed, is applied to a picture of the same size whose red
 * and green channels are ramps of x and y (60..196) and whose blue is a constant 196: resampling keeps ramps linear,
 * and a contrast step (v -> 128 + a (v - 128)) is undone with a read from the blue channel. An affine fit of copy
 * pixels to original pixels (outliers such as a rotation's fill dropped) is the first estimate. Geometry and contrast
 * only: a tone curve or a colour change breaks the ramps.
 * The ramps alone can be several pixels off: a JPEG step quantises their chroma, and a chain of 5 on the low-key photo
 * (crop, scale, contrast +40 %, JPEG, rotation) had its ramp fit at 3.5 px RMS, 10 px from where the picture was (a
 * wrong "registration off by 10 px" that hid a photometric failure for a session). The estimate is then corrected by
 * the same attack on a grid of small dark squares on grey: each square's centroid in the copy, taken back by the
 * ramps' fit to the nearest square of the grid, gives point pairs whose affine fit (0.1–0.2 px RMS there) is the truth. */
import sharp from 'sharp';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { solve } from '../../libs/watermark/src/image';
import { Attack } from './attacks';

const math = Math;
const LO = 60;
const SPAN = 136;
const BLUE = 196;

/** Affine map copy (x, y) -> original (u, v): u = a0 x + a1 y + a2, v = a3 x + a4 y + a5. */
export interface TrueGeometry {
  affine: number[];
  /** RMS residual of the fit, original pixels. */
  rms: number;
  /** Pixels the fit kept. */
  used: number;
  /** Grid squares the correction used (0: the ramps' fit is the truth). */
  markers: number;
}

/** Spacing and half side of the grid's squares (original pixels). */
const GRID = 32;
const HALF = 3;

/** `makeRand` returns the attack's random stream afresh (the attack runs twice: ramps, then the grid). */
export async function trueGeometry(attack: Attack, makeRand: () => () => number, width: number, height: number): Promise<TrueGeometry | null> {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      px[o] = Math.round(LO + (SPAN * x) / (width - 1));
      px[o + 1] = Math.round(LO + (SPAN * y) / (height - 1));
      px[o + 2] = BLUE;
    }
  }
  const ramp = await sharp(px, { raw: { width, height, channels: 3 } }).png().toBuffer();
  const out = await sharp(await attack(ramp, makeRand())).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { data, info } = out;
  const n = info.width * info.height;
  const blues = new Uint32Array(256);
  for (let i = 0; i < n; i++) blues[data[i * info.channels + 2]]++;
  let bMed = 0;
  for (let acc = 0; bMed < 255 && acc + blues[bMed] < n / 2; bMed++) acc += blues[bMed];
  const a = (bMed - 128) / (BLUE - 128);
  if (!(math.abs(a) > 0.2)) return null;
  const pts: number[][] = [];
  const step = math.max(1, math.floor(math.sqrt(n / 40_000)));
  for (let y = 0; y < info.height; y += step) {
    for (let x = 0; x < info.width; x += step) {
      const o = (y * info.width + x) * info.channels;
      if (math.abs(data[o + 2] - bMed) > 4) continue;
      const r = (data[o] - 128) / a + 128;
      const g = (data[o + 1] - 128) / a + 128;
      if (r < LO - 2 || r > LO + SPAN + 2 || g < LO - 2 || g > LO + SPAN + 2) continue;
      pts.push([x, y, ((r - LO) / SPAN) * (width - 1), ((g - LO) / SPAN) * (height - 1)]);
    }
  }
  // outliers (a rotation's fill, blended edges): beyond 3 median residuals, at least 2 px
  const ramps = robustAffine(pts, 4, 10, (res) => math.max(2, 3 * [...res].sort((p, q) => p - q)[res.length >> 1]));
  if (!ramps) return null;
  const first = { affine: ramps.fit, rms: ramps.rms, used: ramps.kept.length, markers: 0 };
  return (await byMarkers(attack, makeRand(), width, height, first)) ?? first;
}

/** The ramps' estimate corrected on a grid of dark squares (header); null when too few squares were found. */
async function byMarkers(attack: Attack, rand: () => number, width: number, height: number, first: TrueGeometry): Promise<TrueGeometry | null> {
  const px = Buffer.alloc(width * height * 3, 128);
  const centres: [number, number][] = [];
  for (let cy = GRID / 2; cy + HALF < height; cy += GRID) {
    for (let cx = GRID / 2; cx + HALF < width; cx += GRID) {
      centres.push([cx, cy]);
      for (let y = cy - HALF; y <= cy + HALF; y++) px.fill(0, (y * width + cx - HALF) * 3, (y * width + cx + HALF + 1) * 3);
    }
  }
  const grid = await sharp(px, { raw: { width, height, channels: 3 } }).png().toBuffer();
  const { data, info } = await sharp(await attack(grid, rand)).removeAlpha().greyscale().raw().toBuffer({ resolveWithObject: true });
  const w = info.width;
  const n = w * info.height;
  // dark: below the middle of grey (after a contrast step) and black; a dark fill is one large component, dropped
  const sorted = Uint8Array.from(data).sort();
  const cut = 0.6 * sorted[n >> 1];
  const seen = new Uint8Array(n);
  const pairs: number[][] = [];
  const stack: number[] = [];
  const t = first.affine;
  for (let i = 0; i < n; i++) {
    if (seen[i] || data[i] >= cut) continue;
    seen[i] = 1;
    stack.push(i);
    let sx = 0;
    let sy = 0;
    let m = 0;
    while (stack.length) {
      const j = stack.pop() ?? 0;
      const x = j % w;
      const y = (j - x) / w;
      // weighted by darkness: a blurred square's centroid
      const wt = cut - data[j];
      sx += wt * x;
      sy += wt * y;
      m += wt;
      for (const k of [x > 0 ? j - 1 : -1, x < w - 1 ? j + 1 : -1, j - w, j + w]) {
        if (k >= 0 && k < n && !seen[k] && data[k] < cut) {
          seen[k] = 1;
          stack.push(k);
        }
      }
    }
    if (m <= 0) continue;
    const x = sx / m;
    const y = sy / m;
    const u = t[0] * x + t[1] * y + t[2];
    const v = t[3] * x + t[4] * y + t[5];
    // the nearest square, when clearly nearer than its neighbours (a square cut by the copy's edge is off-centre)
    const gx = math.round((u - GRID / 2) / GRID) * GRID + GRID / 2;
    const gy = math.round((v - GRID / 2) / GRID) * GRID + GRID / 2;
    if (math.hypot(u - gx, v - gy) < GRID / 4 && centres.some(([cx, cy]) => cx === gx && cy === gy) && x > 2 && y > 2 && x < w - 3 && y < info.height - 3) pairs.push([x, y, gx, gy]);
  }
  if (pairs.length < 6) return null;
  const squares = robustAffine(pairs, 3, 6, (_, rms) => math.max(1, 3 * rms));
  if (!squares) return null;
  const { fit, rms, kept: keep } = squares;
  return { affine: fit, rms, used: first.used, markers: keep.length };
}

/**
 * Affine fit of point pairs [x, y, u, v], refitted `rounds` times without the pairs whose residual is above
 * `cut(residuals, rms)` (while at least `least` remain); null when a fit is singular.
 */
function robustAffine(pts: number[][], rounds: number, least: number, cut: (res: number[], rms: number) => number): { fit: number[]; rms: number; kept: number[][] } | null {
  let keep = pts;
  let fit: number[] | null = null;
  let rms = 0;
  for (let iter = 0; iter < rounds && keep.length >= least; iter++) {
    fit = fitAffine(keep);
    if (!fit) return null;
    const f = fit;
    const res = keep.map(([x, y, u, v]) => math.hypot(f[0] * x + f[1] * y + f[2] - u, f[3] * x + f[4] * y + f[5] - v));
    rms = math.sqrt(res.reduce((a, r) => a + r * r, 0) / res.length);
    const c = cut(res, rms);
    keep = keep.filter((_, i) => res[i] <= c);
  }
  return fit ? { fit, rms, kept: keep } : null;
}

/** Least squares of u and v on (x, y, 1). */
function fitAffine(pts: number[][]): number[] | null {
  const M = new Float64Array(9);
  const bu = new Float64Array(3);
  const bv = new Float64Array(3);
  for (const [x, y, u, v] of pts) {
    const row = [x, y, 1];
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) M[i * 3 + j] += row[i] * row[j];
      bu[i] += row[i] * u;
      bv[i] += row[i] * v;
    }
  }
  const su = solve(M, bu, 3);
  const sv = solve(M, bv, 3);
  return su && sv ? [...su, ...sv] : null;
}

/** Largest distance (original pixels) between the registration's map H (3 x 3, row-major) and the truth, over a grid of the copy. */
export function registrationError(H: Float64Array, truth: TrueGeometry, width: number, height: number, scaleInspected: number, scaleOriginal: number): number {
  let worst = 0;
  const t = truth.affine;
  for (let gy = 0; gy <= 8; gy++) {
    for (let gx = 0; gx <= 8; gx++) {
      const x = (gx / 8) * (width - 1);
      const y = (gy / 8) * (height - 1);
      const xs = x * scaleInspected;
      const ys = y * scaleInspected;
      const w = H[6] * xs + H[7] * ys + H[8];
      const u = (H[0] * xs + H[1] * ys + H[2]) / w / scaleOriginal;
      const v = (H[3] * xs + H[4] * ys + H[5]) / w / scaleOriginal;
      worst = math.max(worst, math.hypot(u - (t[0] * x + t[1] * y + t[2]), v - (t[3] * x + t[4] * y + t[5])));
    }
  }
  return worst;
}
