import { createHash } from 'node:crypto';
import { CODED_BITS } from './payload';
import { WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** One mark layer: a grid of cells over the whole image; each cell carries one chip of one coded bit. */
export interface Layer {
  nx: number;
  ny: number;
  /** Chip sign (+1/-1) of each cell. */
  chip: Int8Array;
  /** Coded bit carried by each cell. */
  bit: Uint16Array;
}

export const LAYER_COUNT = 2;
/** Fine cell size in pixels for an image of w x h (the coarse layer uses twice that). */
export function fineCellSize(w: number, h: number): number {
  return math.max(4, math.sqrt(w * h) / 160);
}

export function gridDims(w: number, h: number): [number, number][] {
  const c = fineCellSize(w, h);
  const out: [number, number][] = [];
  for (let l = 0; l < LAYER_COUNT; l++) {
    const cs = c * (l === 0 ? 1 : 2);
    out.push([math.max(2, math.round(w / cs)), math.max(2, math.round(h / cs))]);
  }
  return out;
}

function mix(a: number): number {
  let h = a | 0;
  h = math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

const STRIDES = [26, 19];

/** Builds the keyed layers for grids `dims`. The pattern depends on (secret, version) only. */
export function buildLayers(key: WatermarkKey, dims: [number, number][]): Layer[] {
  const seed = createHash('sha256').update(`cp-wm-pattern|${key.version}|`).update(key.secret).digest();
  return dims.map(([nx, ny], l) => {
    const s0 = seed.readUInt32LE(l * 8);
    const s1 = seed.readUInt32LE(l * 8 + 4);
    // keyed permutation of the coded bits (Fisher-Yates with a keyed hash stream)
    const perm = new Uint16Array(CODED_BITS);
    for (let i = 0; i < CODED_BITS; i++) perm[i] = i;
    for (let i = CODED_BITS - 1; i > 0; i--) {
      const j = mix(s1 ^ mix(i * 0x9e3779b1 + l)) % (i + 1);
      const t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    const offset = mix(s1 + 17) % CODED_BITS;
    const chip = new Int8Array(nx * ny);
    const bit = new Uint16Array(nx * ny);
    const stride = STRIDES[l];
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) {
        const c = y * nx + x;
        chip[c] = mix(s0 ^ mix(x * 0x27d4eb2d + mix(y * 0x165667b1 + s1))) & 1 ? 1 : -1;
        bit[c] = perm[(x + stride * y + offset) % CODED_BITS];
      }
    }
    return { nx, ny, chip, bit };
  });
}

/** Per-axis bilinear sampling tables for mapping n pixels onto `cells` cell centres. */
export interface AxisTable {
  i0: Int32Array;
  f: Float32Array;
}

export function axisTable(pixels: number, cells: number): AxisTable {
  const i0 = new Int32Array(pixels);
  const f = new Float32Array(pixels);
  for (let x = 0; x < pixels; x++) {
    const u = ((x + 0.5) * cells) / pixels - 0.5;
    let i = math.floor(u);
    let fr = u - i;
    if (i < 0) {
      i = 0;
      fr = 0;
    } else if (i >= cells - 1) {
      i = cells - 2;
      fr = 1;
    }
    i0[x] = i;
    f[x] = fr;
  }
  return { i0, f };
}

/** Activity floor: flat areas (paper, sky) keep a useful share of the mark. */
export const MASK_FLOOR = 20;
/**
 * Small images (fewer than SMALL_CELLS fine cells, e.g. 384x191 text scans) have few cells per coded bit: the mask is
 * flatter there (a strong mask concentrates the energy on a few busy cells, such as ink strokes, that JPEG and blur
 * damage most) and the embedder adds some energy (SMALL_BOOST).
 */
export const SMALL_CELLS = 8_000;
export const SMALL_MASK_FLOOR = 60;
export function isSmallGrid(dims: [number, number][]): boolean {
  return dims[0][0] * dims[0][1] < SMALL_CELLS;
}
/** Perceptual mask amplitude (activity + floor)^0.75 from local activity (two square roots: Math.pow is slow here). */
export function maskAmplitude(activity: number, floor = MASK_FLOOR): number {
  const r = math.sqrt(activity + floor);
  return r * math.sqrt(r);
}

/** Per-cell activity (mean |dx|+|dy|) of a luma plane on a grid nx x ny. */
export function cellActivity(luma: Float32Array | Uint8Array, w: number, h: number, nx: number, ny: number, step: number): Float32Array {
  const sum = new Float32Array(nx * ny);
  const cnt = new Float32Array(nx * ny);
  for (let y = 0; y + 1 < h; y += step) {
    const cy = math.min(ny - 1, math.floor(((y + 0.5) * ny) / h));
    const row = y * w;
    for (let x = 0; x + 1 < w; x += step) {
      const cx = math.min(nx - 1, math.floor(((x + 0.5) * nx) / w));
      const v = luma[row + x];
      const a = math.abs(luma[row + x + 1] - v) + math.abs(luma[row + w + x] - v);
      const c = cy * nx + cx;
      sum[c] += a;
      cnt[c] += 1;
    }
  }
  for (let i = 0; i < sum.length; i++) sum[i] = cnt[i] > 0 ? sum[i] / cnt[i] : 0;
  return sum;
}

/** Resamples a per-cell map to another grid (nearest cell). */
export function regrid(src: Float32Array, nx: number, ny: number, tx: number, ty: number): Float32Array {
  const out = new Float32Array(tx * ty);
  for (let y = 0; y < ty; y++) {
    const sy = math.min(ny - 1, math.floor(((y + 0.5) * ny) / ty));
    for (let x = 0; x < tx; x++) {
      const sx = math.min(nx - 1, math.floor(((x + 0.5) * nx) / tx));
      // average a small neighbourhood so coarse cells see their whole area
      out[y * tx + x] = src[sy * nx + sx];
    }
  }
  return out;
}

/** Relative amplitude maps (one per layer), from an activity map on the fine grid. */
export function amplitudeMaps(activityFine: Float32Array, dims: [number, number][]): Float32Array[] {
  const floor = isSmallGrid(dims) ? SMALL_MASK_FLOOR : MASK_FLOOR;
  return coarsen(activityFine, dims).map((act) => {
    const a = new Float32Array(act.length);
    for (let i = 0; i < a.length; i++) a[i] = maskAmplitude(act[i], floor);
    return a;
  });
}

/** Per-layer maps from a fine-grid map: coarse cells take the mean of the fine cells they cover. */
export function coarsen(fine: Float32Array, dims: [number, number][]): Float32Array[] {
  const [fnx, fny] = dims[0];
  return dims.map(([nx, ny], l) => {
    if (l === 0) return fine;
    const out = new Float32Array(nx * ny);
    const cnt = new Float32Array(nx * ny);
    for (let y = 0; y < fny; y++) {
      const cy = math.min(ny - 1, math.floor(((y + 0.5) * ny) / fny));
      for (let x = 0; x < fnx; x++) {
        const c = cy * nx + math.min(nx - 1, math.floor(((x + 0.5) * nx) / fnx));
        out[c] += fine[y * fnx + x];
        cnt[c] += 1;
      }
    }
    for (let i = 0; i < out.length; i++) out[i] = cnt[i] ? out[i] / cnt[i] : 0;
    return out;
  });
}
