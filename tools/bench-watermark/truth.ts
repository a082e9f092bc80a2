/* Dev probe (replay.ts, REPLAY_TRUTH=1): the true geometry of a replayed attack, to tell a wrong registration from a
 * mark the attack destroyed. The same attack, with the same seed, is applied to a picture of the same size whose red
 * and green channels are ramps of x and y (60..196) and whose blue is a constant 196: resampling keeps ramps linear,
 * and a contrast step (v -> 128 + a (v - 128)) is undone with a read from the blue channel. An affine fit of copy
 * pixels to original pixels (outliers such as a rotation's fill dropped) is the truth. Geometry and contrast only:
 * a tone curve or a colour change breaks the ramps. */
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
}

export async function trueGeometry(attack: Attack, rand: () => number, width: number, height: number): Promise<TrueGeometry | null> {
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
  const out = await sharp(await attack(ramp, rand)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
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
  let keep = pts;
  let fit: number[] | null = null;
  let rms = 0;
  for (let iter = 0; iter < 4 && keep.length >= 10; iter++) {
    fit = fitAffine(keep);
    if (!fit) return null;
    const f = fit;
    const res = keep.map(([x, y, u, v]) => math.hypot(f[0] * x + f[1] * y + f[2] - u, f[3] * x + f[4] * y + f[5] - v));
    const sorted = [...res].sort((p, q) => p - q);
    const cut = math.max(2, 3 * sorted[sorted.length >> 1]);
    rms = math.sqrt(res.reduce((s, r) => s + r * r, 0) / res.length);
    keep = keep.filter((_, i) => res[i] <= cut);
  }
  return fit ? { affine: fit, rms, used: keep.length } : null;
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
