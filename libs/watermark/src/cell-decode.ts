/** Cell statistics to per-coded-bit z-scores, and z-scores of the layers to a payload (registered and blind decoding). */
import { accumulateCellsKernel } from './decode-kernel';
import { CODED_BITS, decodeSoft, DecodedPayload } from './payload';
import { Layer } from './pattern';
import { WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** A check-passing candidate needs at least this confidence to be reported as `detected`. */
export const DETECT_THRESHOLD = 0.2;

/** Per-coded-bit z-scores of one layer. */
export function zFromCells(layer: Layer, amp: Float32Array, e: Float32Array, v: Float32Array): Float64Array {
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

/** One layer's cell observations: each cell's estimate e (mean residual) and its variance v (the local residual
 * variance, smoothed over 3 x 3 cells, per the cell's sample weights); zFromCells turns them into z-scores. */
export function cellObservations(layer: Layer, qx: Float32Array, qy: Float32Array, r: Float32Array): { e: Float32Array; v: Float32Array } {
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
  return { e, v };
}

export function smoothCells(x: Float32Array, nx: number, ny: number, r: number): Float32Array {
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

export interface CellSums {
  p: Float32Array; // sum w*r
  w1: Float32Array; // sum w
  w2: Float32Array; // sum w^2
  r2: Float32Array; // sum w*r^2
}

/** Accumulates bilinear cell projections of values r (NaN = skip) at normalised positions (u[k], v[k]) in [0,1]. */
export function accumulate(nx: number, ny: number, u: Float32Array, v: Float32Array, r: Float32Array): CellSums {
  // every working pixel, per layer: in WebAssembly (decode-kernel.ts; tapOf's taps in double precision and the f32
  // sums of the JavaScript loop it replaced, to the bit)
  return accumulateCellsKernel(nx, ny, u, v, r);
}

export interface PixelTaps {
  c: Int32Array;
  fx: Float32Array;
  fy: Float32Array;
}

/**
 * Bilinear taps (base cell and fractions) of every pixel on one layer's grid; base -1 = no sample. The fractions are
 * kept in single precision (the joint soft estimate, whose figures were measured so; accumulate() uses the same taps
 * in double precision). Written into `out` (arrays of u.length: the joint estimate passes views of the decode
 * kernel's memory, which hold old data, so every entry is written).
 */
export function pixelTaps(nx: number, ny: number, u: Float32Array, v: Float32Array, valid: Uint8Array, out: PixelTaps): void {
  const n = u.length;
  const { c, fx: fxs, fy: fys } = out;
  c.fill(-1, 0, n);
  fxs.fill(0, 0, n);
  fys.fill(0, 0, n);
  const f = new Float64Array(2);
  for (let k = 0; k < n; k++) {
    if (!valid[k]) continue;
    c[k] = tapOf(nx, ny, u[k], v[k], f);
    fxs[k] = f[0];
    fys[k] = f[1];
  }
}

/**
 * One pixel's bilinear tap on a layer's grid: returns the base cell, writes the fractions to f[0], f[1] (clamped at
 * the grid's edges). Written to a caller's scratch array, not returned as a pair: it runs for every working pixel.
 */
function tapOf(nx: number, ny: number, u: number, v: number, f: Float64Array): number {
  let fx = u * nx - 0.5;
  let fy = v * ny - 0.5;
  let ix = math.floor(fx);
  let iy = math.floor(fy);
  if (ix < 0) { ix = 0; fx = 0; } else if (ix >= nx - 1) { ix = nx - 2; fx = 1; } else fx -= ix;
  if (iy < 0) { iy = 0; fy = 0; } else if (iy >= ny - 1) { iy = ny - 2; fy = 1; } else fy -= iy;
  f[0] = fx;
  f[1] = fy;
  return iy * nx + ix;
}

/** The layers' sum, then each layer alone, until one decodes convincingly; `list` as decodeSoft's. */
export function decodeLayers(zs: Float64Array[], key: WatermarkKey, list = 1): DecodedPayload | null {
  const combos: Float64Array[] = [];
  const sum = new Float64Array(CODED_BITS);
  for (const z of zs) for (let i = 0; i < CODED_BITS; i++) sum[i] += z[i];
  combos.push(sum, ...zs);
  let best: DecodedPayload | null = null;
  for (const soft of combos) {
    const d = decodeSoft(soft, key, list);
    if (d.tagOk && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) break;
  }
  return best;
}

export function confidenceOf(d: DecodedPayload): number {
  return math.max(0, math.min(1, d.agreement));
}
