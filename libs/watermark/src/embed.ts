import { checkInput, decodeRaster, encodeRaster, Raster, RowsHook } from './codec';
import { convEncode, infoBits, checkPayload } from './payload';
import { withMarkKernel, MarkKernel } from './mark-kernel';
import { amplitudeMaps, AxisTable, axisTable, buildLayers, coarsen, gridDims, isSmallGrid, Layer, LAYER_COUNT } from './pattern';
import { DEFAULT_MAX_PIXELS, EmbedOptions, EmbedResult, WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Mean squared luminance change the mark aims at (about 43 dB PSNR before rounding). */
export const TARGET_MSE = 3.2;
/** Mean bilinear-interpolation energy factor of a random-sign cell field ((2/3)^2). */
const INTERP_ENERGY = 4 / 9;
/** Share of the mark energy on the coarse layer (it survives low-pass edits better). */
const COARSE_SHARE = 0.6;

/**
 * Per-cell activity (mean |dx|+|dy| of the luma (R + 2G + B) / 4), mean luma (0–255) and share of dark, flat pixels
 * (see ceilingMap) of an interleaved raster on an nx x ny grid.
 */
function rasterActivity(r: Raster, nx: number, ny: number): { activity: Float32Array; luma: Float32Array; darkFlat: Float32Array } {
  const { width: w, height: h, channels: ch, colorChannels: cc, data } = r;
  const step = w * h > 4_000_000 ? 4 : w * h > 1_000_000 ? 2 : 1;
  const sum = new Float64Array(nx * ny);
  const lum = new Float64Array(nx * ny);
  const cnt = new Int32Array(nx * ny);
  const df = new Int32Array(nx * ny);
  const cxOf = new Int32Array(w);
  for (let x = 0; x < w; x++) cxOf[x] = math.min(nx - 1, math.floor(((x + 0.5) * nx) / w));
  // the luma is summed as R + 2G + B (4x, or 4x gray) in the sample type, scaled once at the end
  const scale = (cc === 1 ? 1 : 0.25) / (data instanceof Uint16Array ? 257 : 1);
  const gray = cc === 1;
  // dark, flat pixels in the raster's own units (luma below DARK_FLAT_LUMA, |dx|+|dy| below DARK_FLAT_ACTIVITY)
  const darkV = DARK_FLAT_LUMA / scale;
  const flatA = DARK_FLAT_ACTIVITY / scale;
  for (let y = 0; y + 1 < h; y += step) {
    const cy = math.min(ny - 1, math.floor(((y + 0.5) * ny) / h));
    if (data instanceof Uint8Array) activityRow8(data, y * w * ch, w * ch, w, ch, gray, step, cxOf, cy * nx, sum, lum, cnt, df, darkV, flatA);
    else activityRow16(data, y * w * ch, w * ch, w, ch, gray, step, cxOf, cy * nx, sum, lum, cnt, df, darkV, flatA);
  }
  const activity = new Float32Array(nx * ny);
  const luma = new Float32Array(nx * ny);
  const darkFlat = new Float32Array(nx * ny);
  for (let i = 0; i < activity.length; i++) {
    activity[i] = cnt[i] > 0 ? (sum[i] * scale) / cnt[i] : 0;
    luma[i] = cnt[i] > 0 ? (lum[i] * scale) / cnt[i] : 128;
    darkFlat[i] = cnt[i] > 0 ? df[i] / cnt[i] : 0;
  }
  return { activity, luma, darkFlat };
}

/** One sampled row of rasterActivity for 8-bit samples (kept monomorphic: it runs ~750k times for 12 MP). */
function activityRow8(d: Uint8Array, row: number, stride: number, w: number, ch: number, gray: boolean, step: number, cxOf: Int32Array, cellRow: number, sum: Float64Array, lum: Float64Array, cnt: Int32Array, df: Int32Array, darkV: number, flatA: number): void {
  const below = row + stride;
  for (let x = 0; x + 1 < w; x += step) {
    const i = row + x * ch;
    const j = below + x * ch;
    const v = gray ? d[i] : d[i] + 2 * d[i + 1] + d[i + 2];
    const right = gray ? d[i + ch] : d[i + ch] + 2 * d[i + ch + 1] + d[i + ch + 2];
    const down = gray ? d[j] : d[j] + 2 * d[j + 1] + d[j + 2];
    const c = cellRow + cxOf[x];
    const a = math.abs(right - v) + math.abs(down - v);
    sum[c] += a;
    lum[c] += v;
    cnt[c] += 1;
    if (v < darkV && a < flatA) df[c] += 1;
  }
}

/** activityRow8 for 16-bit samples (a copy, so that each loop sees one array type). */
function activityRow16(d: Uint16Array, row: number, stride: number, w: number, ch: number, gray: boolean, step: number, cxOf: Int32Array, cellRow: number, sum: Float64Array, lum: Float64Array, cnt: Int32Array, df: Int32Array, darkV: number, flatA: number): void {
  const below = row + stride;
  for (let x = 0; x + 1 < w; x += step) {
    const i = row + x * ch;
    const j = below + x * ch;
    const v = gray ? d[i] : d[i] + 2 * d[i + 1] + d[i + 2];
    const right = gray ? d[i + ch] : d[i + ch] + 2 * d[i + ch + 1] + d[i + ch + 2];
    const down = gray ? d[j] : d[j] + 2 * d[j + 1] + d[j + 2];
    const c = cellRow + cxOf[x];
    const a = math.abs(right - v) + math.abs(down - v);
    sum[c] += a;
    lum[c] += v;
    cnt[c] += 1;
    if (v < darkV && a < flatA) df[c] += 1;
  }
}

/** Energy factor of small images (see isSmallGrid): more energy, about -1.5 dB PSNR. */
export const SMALL_BOOST = 1.6;

/** What the mark of an image depends on besides its pixels: grid sizes, keyed layers and the coded payload bits. */
export interface MarkPlan {
  width: number;
  height: number;
  dims: [number, number][];
  layers: Layer[];
  coded: Uint8Array;
}

export function planMark(width: number, height: number, payload: bigint, key: WatermarkKey): MarkPlan {
  const dims = gridDims(width, height);
  return { width, height, dims, layers: buildLayers(key, dims), coded: convEncode(infoBits(payload, key)) };
}

/** Cell values (signed amplitudes) of each layer for this raster. */
export function markCells(r: Raster, plan: MarkPlan): Float32Array[] {
  const { activity, luma, darkFlat } = rasterActivity(r, plan.dims[0][0], plan.dims[0][1]);
  const amps = amplitudeMaps(activity, plan.dims);
  // 1-bit images carry the mark as flipped edge pixels, not as a luminance change: no ceiling
  return cellValues(amps, plan, r.bilevel, r.bilevel ? undefined : coarsen(ceilingMap(activity, luma, darkFlat), plan.dims));
}

/**
 * Visual masking (issue 16, part 2): the most a cell may change, in luma levels, from its texture and brightness.
 * The energy target (TARGET_MSE) spreads the mark by texture, but on a picture that is mostly flat it still puts
 * ~3 levels² on every flat cell, and there the eye (and SSIM) sees it; in dark areas the same change is a larger
 * share of the signal. The ceiling leaves textured cells alone and holds flat and dark ones down, so a mostly
 * flat or low-key picture carries less mark in total (its PSNR rises) rather than a visible one.
 */
export function ceilingMap(activity: Float32Array, luma: Float32Array, darkFlat?: Float32Array): Float32Array {
  const out = new Float32Array(activity.length);
  const blackFlat = FLAT_VARIANCE * BLACK_CEILING_FACTOR ** 2;
  for (let i = 0; i < out.length; i++) {
    const dark = math.min(1, (luma[i] + 1.5 * FLAT_LUMA_KNEE) / (2.5 * FLAT_LUMA_KNEE));
    const own = (FLAT_VARIANCE + TEXTURE_VARIANCE_PER_ACTIVITY * activity[i]) * dark * dark;
    // issue 34: sparse bright detail on black (a star field): a few bright points give the cell a high mean
    // activity and luma, but the mark is spread over the whole cell, and on its black, flat pixels the eye and SSIM
    // see it as on a black, flat cell. The cell's variance is the blend of both by their shares.
    const s = darkFlat ? darkFlat[i] : 0;
    out[i] = math.sqrt(((1 - s) * own + s * math.min(own, blackFlat)) / INTERP_ENERGY);
  }
  return out;
}
/** Luma (0–255) below which a flat pixel counts as dark for the ceiling (see ceilingMap). */
export const DARK_FLAT_LUMA = 24;
/** |dx| + |dy| (luma levels) below which a pixel counts as flat for the ceiling. */
export const DARK_FLAT_ACTIVITY = 8;
/** The ceiling of a black, flat cell relative to a bright one (the dark factor at luma 0). */
const BLACK_CEILING_FACTOR = 0.6;
/** Largest mark variance (levels²) on a flat, bright cell: ~0.985 SSIM on an 8x8 window of a flat area. */
export const FLAT_VARIANCE = 1.4;
/** Extra variance allowed per unit of activity (texture hides the mark). */
export const TEXTURE_VARIANCE_PER_ACTIVITY = 0.8;
/** Below this mean luma the ceiling falls linearly (to 60 % of it at black). */
export const FLAT_LUMA_KNEE = 48;

/**
 * Signed cell values of each layer from its relative amplitude map, scaled to the target energy, each cell's
 * two layers together held under `ceiling` (per layer, in its share of the energy) when given.
 */
function cellValues(amps: Float32Array[], plan: MarkPlan, bilevel: boolean, ceiling?: Float32Array[]): Float32Array[] {
  const { dims, layers, coded } = plan;
  return layers.map((layer, l) => {
    const a = amps[l];
    let ms = 0;
    for (let i = 0; i < a.length; i++) ms += a[i] * a[i];
    ms /= a.length;
    const share = l === 0 ? 1 - COARSE_SHARE : COARSE_SHARE;
    const gain = math.sqrt((TARGET_MSE * (isSmallGrid(dims) ? SMALL_BOOST : 1) * share) / (INTERP_ENERGY * ms)) * (bilevel ? 12 : 1);
    const v = new Float32Array(a.length);
    const cap = ceiling?.[l];
    const capShare = math.sqrt(share);
    // the energy the ceiling takes off flat and dark cells goes back to the cells under theirs, up to MAX_REFILL
    const refill = cap ? refillGain(a, gain, cap, capShare) : 1;
    for (let c = 0; c < v.length; c++) {
      const amplitude = cap ? math.min(a[c] * gain * refill, cap[c] * capShare) : a[c] * gain;
      v[c] = amplitude * layer.chip[c] * (coded[layer.bit[c]] ? 1 : -1);
    }
    return v;
  });
}

/** Largest factor by which cells under the ceiling may grow to make up for the energy the ceiling removed. */
export const MAX_REFILL = 2;

/** The factor r ≤ MAX_REFILL for which Σ min(a·gain·r, cap)² comes closest to Σ (a·gain)² (bisection). */
function refillGain(a: Float32Array, gain: number, cap: Float32Array, capShare: number): number {
  let target = 0;
  for (let c = 0; c < a.length; c++) target += (a[c] * gain) ** 2;
  const energy = (r: number): number => {
    let e = 0;
    for (let c = 0; c < a.length; c++) e += math.min(a[c] * gain * r, cap[c] * capShare) ** 2;
    return e;
  };
  if (energy(1) >= target * 0.999) return 1;
  if (energy(MAX_REFILL) <= target) return MAX_REFILL;
  let lo = 1;
  let hi = MAX_REFILL;
  for (let i = 0; i < 16; i++) {
    const mid = (lo + hi) / 2;
    if (energy(mid) < target) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The luminance change the engine makes on a flat image of the plan's size (no texture, so no masking),
 * sampled at the pixel centres of an outW x outH grid laid over the same area. Lets a caller draw the mark
 * at another resolution (the PDF engine's shared page overlay) and still be read by this engine's extraction.
 */
export function flatMarkField(plan: MarkPlan, outW: number, outH: number): Float32Array {
  const [fnx, fny] = plan.dims[0];
  const values = cellValues(amplitudeMaps(new Float32Array(fnx * fny), plan.dims), plan, false);
  const out = new Float32Array(outW * outH);
  plan.dims.forEach(([nx], l) => {
    const xt = axisTable(outW, nx);
    const yt = axisTable(outH, plan.dims[l][1]);
    const v = values[l];
    for (let y = 0; y < outH; y++) {
      const upper = yt.i0[y] * nx;
      const lower = upper + nx;
      const fy = yt.f[y];
      for (let x = 0; x < outW; x++) {
        const i = xt.i0[x];
        const fx = xt.f[x];
        const top = v[upper + i] + (v[upper + i + 1] - v[upper + i]) * fx;
        const bottom = v[lower + i] + (v[lower + i + 1] - v[lower + i]) * fx;
        out[y * outW + x] += top + (bottom - top) * fy;
      }
    }
  });
  return out;
}

/**
 * Row-by-row view of the mark: each layer is bilinear over its cells, so a row is, per layer, a blend of the
 * x-interpolated profiles of two cell rows. The two profiles of each layer live in slots 2l and 2l+1 of
 * `profiles`; moving down one cell row reuses one profile and computes the next.
 */
class MarkRows {
  /** Profile slots in the order the kernel takes them: layer 0 (upper, lower), layer 1 (upper, lower). */
  readonly slots = [0, 1, 2, 3];
  /** Blend weight of the lower profile, per layer, for the current row. */
  readonly weight = new Float32Array(LAYER_COUNT);
  private readonly xt: AxisTable[];
  private readonly yt: AxisTable[];
  private readonly band = new Int32Array(LAYER_COUNT).fill(-1);

  constructor(
    private readonly width: number,
    height: number,
    private readonly dims: [number, number][],
    private readonly values: Float32Array[],
    private readonly profiles: Float32Array[],
  ) {
    this.xt = dims.map(([nx]) => axisTable(width, nx));
    this.yt = dims.map(([, ny]) => axisTable(height, ny));
  }

  /** Prepares the profiles and weights of row y (rows are visited top to bottom). */
  row(y: number): void {
    for (let l = 0; l < LAYER_COUNT; l++) {
      const iy = this.yt[l].i0[y];
      const upper = 2 * l;
      if (iy === this.band[l] + 1 && this.band[l] >= 0) {
        const reused = this.slots[upper + 1];
        this.slots[upper + 1] = this.slots[upper];
        this.slots[upper] = reused;
        this.profile(l, iy + 1, this.profiles[this.slots[upper + 1]]);
      } else if (iy !== this.band[l]) {
        this.profile(l, iy, this.profiles[this.slots[upper]]);
        this.profile(l, iy + 1, this.profiles[this.slots[upper + 1]]);
      }
      this.band[l] = iy;
      this.weight[l] = this.yt[l].f[y];
    }
  }

  private profile(l: number, iy: number, out: Float32Array): void {
    const nx = this.dims[l][0];
    const v = this.values[l];
    const { i0, f } = this.xt[l];
    const o = iy * nx;
    for (let x = 0; x < this.width; x++) {
      const i = o + i0[x];
      out[x] = v[i] + (v[i + 1] - v[i]) * f[x];
    }
  }
}

/** Pixels pass through the kernel's memory in chunks of whole rows of at most this size (its memory stays small). */
const KERNEL_CHUNK_BYTES = 2 * 1024 * 1024;

/** 8-bit samples, in place: each chunk of rows is copied into the kernel's memory, marked there and copied back. */
function markInKernel(kernel: MarkKernel, r: Raster, data: Uint8Array, values: Float32Array[], dims: [number, number][]): RowsHook {
  const { width: w, height: h, channels: ch } = r;
  const rowBytes = w * ch;
  const chunkRows = math.max(1, math.min(h, math.floor(KERNEL_CHUNK_BYTES / rowBytes)));
  kernel.prepare(w, chunkRows * rowBytes);
  const chunk = kernel.pixels(chunkRows * rowBytes);
  const rows = new MarkRows(w, h, dims, values, [0, 1, 2, 3].map((slot) => kernel.profile(slot, w)));
  return (y0, y1) => {
    for (let a = y0; a < y1; a += chunkRows) {
      const b = math.min(y1, a + chunkRows);
      chunk.set(data.subarray(a * rowBytes, b * rowBytes));
      for (let y = a; y < b; y++) {
        rows.row(y);
        kernel.markRow((y - a) * rowBytes, w, ch, rows.slots, rows.weight[0], rows.weight[1]);
      }
      data.set(chunk.subarray(0, (b - a) * rowBytes), a * rowBytes);
    }
  };
}

/** 16-bit samples and 1-bit images, in place. */
function markInPlace(r: Raster, values: Float32Array[], dims: [number, number][]): RowsHook {
  const { width: w, height: h, channels: ch, colorChannels: cc, data } = r;
  const profiles = [0, 1, 2, 3].map(() => new Float32Array(w));
  const rows = new MarkRows(w, h, dims, values, profiles);
  const delta = new Float32Array(w);
  const unit = data instanceof Uint16Array ? 257 : 1;
  const maxV = data instanceof Uint16Array ? 65535 : 255;
  // 1-bit: boundaries are judged on the unmarked image
  const bi = r.bilevel ? new Uint8Array(data as Uint8Array) : null;
  const markRow = (y: number): void => {
    rows.row(y);
    const [a0, b0, a1, b1] = rows.slots.map((slot) => profiles[slot]);
    const f0 = rows.weight[0];
    const f1 = rows.weight[1];
    for (let x = 0; x < w; x++) delta[x] = a0[x] * (1 - f0) + b0[x] * f0 + (a1[x] * (1 - f1) + b1[x] * f1);
    if (bi) {
      embedBilevelRow(bi, data as Uint8Array, w, h, y, delta);
      return;
    }
    const row = y * w * ch;
    for (let x = 0; x < w; x++) {
      const d = delta[x] * unit;
      const p = row + x * ch;
      for (let c = 0; c < cc; c++) {
        const nv = math.round(data[p + c] + d);
        data[p + c] = nv < 0 ? 0 : nv > maxV ? maxV : nv;
      }
    }
  };
  return (y0, y1) => {
    for (let y = y0; y < y1; y++) markRow(y);
  };
}

/**
 * Prepares the mark of a decoded raster (cell values from its activity) and returns what marks its rows in place,
 * on demand: consecutive row ranges, top to bottom, so the encoder can start on the first rows while later ones
 * are marked.
 */
export function prepareMark(r: Raster, plan: MarkPlan, kernel: MarkKernel): RowsHook {
  const values = markCells(r, plan);
  // every 8-bit raster but 1-bit sources goes through the WebAssembly kernel
  if (r.data instanceof Uint8Array && !r.bilevel) return markInKernel(kernel, r, r.data, values, plan.dims);
  return markInPlace(r, values, plan.dims);
}

/**
 * 1-bit images: the mark modulates the black/white density near edges. A boundary pixel (one with a
 * 4-neighbour of the other colour) is flipped towards the sign of the mark with probability |mark|/255,
 * decided by a fixed hash of its position. Flat black or white areas are never touched.
 */
function embedBilevelRow(src: Uint8Array, out: Uint8Array, w: number, h: number, y: number, delta: Float32Array): void {
  const row = y * w;
  for (let x = 0; x < w; x++) {
    const v = src[row + x];
    const d = delta[x];
    if ((v >= 128 && d >= 0) || (v < 128 && d <= 0)) continue;
    const other = v >= 128 ? 0 : 255;
    const boundary =
      (x > 0 && (src[row + x - 1] >= 128) !== (v >= 128)) ||
      (x + 1 < w && (src[row + x + 1] >= 128) !== (v >= 128)) ||
      (y > 0 && (src[row - w + x] >= 128) !== (v >= 128)) ||
      (y + 1 < h && (src[row + w + x] >= 128) !== (v >= 128));
    if (!boundary) continue;
    let hsh = math.imul((x * 73856093) ^ (y * 19349663), 0x9e3779b1);
    hsh = (hsh ^ (hsh >>> 15)) >>> 0;
    if ((hsh & 0xffff) / 65536 < math.abs(d) / 255) out[row + x] = other;
  }
}

export async function embedImage(input: Buffer, payload: bigint, options: EmbedOptions): Promise<EmbedResult> {
  checkPayload(payload);
  const header = checkInput(input, options.maxPixels ?? DEFAULT_MAX_PIXELS);
  const decoding = decodeRaster(input, header);
  // the keyed layers depend only on the size: built while the decoder runs
  let plan = planMark(header.width, header.height, payload, options.key);
  const raster = await decoding;
  if (raster.width !== plan.width || raster.height !== plan.height) plan = planMark(raster.width, raster.height, payload, options.key);
  return withMarkKernel(async (kernel) => {
    const data = await encodeRaster(input, raster, header, prepareMark(raster, plan, kernel));
    return { data, format: header.format, width: raster.width, height: raster.height };
  });
}
