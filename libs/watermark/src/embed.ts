import { checkInput, decodeRaster, encodeRaster, Raster, RowsHook } from './codec';
import { convEncode, infoBits, checkPayload } from './payload';
import { ActivitySums, withMarkKernel, MarkKernel } from './mark-kernel';
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

/** Per-cell texture statistics the mark's amplitude and ceiling are drawn from. */
export interface CellStats {
  /** Mean |dx| + |dy| of the luma (R + 2G + B) / 4 (or the gray sample). */
  activity: Float32Array;
  /** Mean luma, 0–255. */
  luma: Float32Array;
  /** Share of dark, flat pixels (see ceilingMap). */
  darkFlat: Float32Array;
}

/** Every step-th row and column is sampled (about a million samples at most). */
function activityStep(w: number, h: number): number {
  return w * h > 4_000_000 ? 4 : w * h > 1_000_000 ? 2 : 1;
}

/** Each pixel column's cell column, and the first cell of each sampled row's cell row (rows y = k * step, y + 1 < h). */
function activityTables(w: number, h: number, nx: number, ny: number, step: number): { cxOf: Int32Array; cyOf: Int32Array } {
  const cxOf = new Int32Array(w);
  for (let x = 0; x < w; x++) cxOf[x] = math.min(nx - 1, math.floor(((x + 0.5) * nx) / w));
  const cyOf = new Int32Array(h > 1 ? math.floor((h - 2) / step) + 1 : 0);
  for (let k = 0; k < cyOf.length; k++) cyOf[k] = math.min(ny - 1, math.floor(((k * step + 0.5) * ny) / h)) * nx;
  return { cxOf, cyOf };
}

/**
 * The luma is summed as R + 2G + B (4x, or 4x gray) in the sample type and scaled once at the end; dark, flat
 * pixels (luma below DARK_FLAT_LUMA, |dx| + |dy| below DARK_FLAT_ACTIVITY) are judged in those raw units.
 */
function activityUnits(r: Raster): { scale: number; darkV: number; flatA: number } {
  const scale = (r.colorChannels === 1 ? 1 : 0.25) / (r.data instanceof Uint16Array ? 257 : 1);
  return { scale, darkV: DARK_FLAT_LUMA / scale, flatA: DARK_FLAT_ACTIVITY / scale };
}

function cellStats({ sum, lum, cnt, df }: ActivitySums, scale: number): CellStats {
  const activity = new Float32Array(sum.length);
  const luma = new Float32Array(sum.length);
  const darkFlat = new Float32Array(sum.length);
  for (let i = 0; i < activity.length; i++) {
    activity[i] = cnt[i] > 0 ? (sum[i] * scale) / cnt[i] : 0;
    luma[i] = cnt[i] > 0 ? (lum[i] * scale) / cnt[i] : 128;
    darkFlat[i] = cnt[i] > 0 ? df[i] / cnt[i] : 0;
  }
  return { activity, luma, darkFlat };
}

/**
 * Cell statistics of an interleaved raster on an nx x ny grid, in JavaScript: 16-bit and 1-bit rasters, and 8-bit
 * ones too large to move into the mark kernel (which computes the same sums: see MarkKernel.activity).
 */
export function rasterActivity(r: Raster, nx: number, ny: number): CellStats {
  const { width: w, height: h, channels: ch, colorChannels: cc, data } = r;
  const step = activityStep(w, h);
  const sums: ActivitySums = { sum: new Float64Array(nx * ny), lum: new Float64Array(nx * ny), cnt: new Int32Array(nx * ny), df: new Int32Array(nx * ny) };
  const { sum, lum, cnt, df } = sums;
  const { cxOf, cyOf } = activityTables(w, h, nx, ny, step);
  const { scale, darkV, flatA } = activityUnits(r);
  const gray = cc === 1;
  for (let k = 0; k < cyOf.length; k++) {
    const y = k * step;
    if (data instanceof Uint8Array) activityRow8(data, y * w * ch, w * ch, w, ch, gray, step, cxOf, cyOf[k], sum, lum, cnt, df, darkV, flatA);
    else activityRow16(data, y * w * ch, w * ch, w, ch, gray, step, cxOf, cyOf[k], sum, lum, cnt, df, darkV, flatA);
  }
  return cellStats(sums, scale);
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
  return cellsOf(rasterActivity(r, plan.dims[0][0], plan.dims[0][1]), plan, r.bilevel);
}

function cellsOf({ activity, luma, darkFlat }: CellStats, plan: MarkPlan, bilevel: boolean): Float32Array[] {
  const amps = amplitudeMaps(activity, plan.dims);
  // 1-bit images carry the mark as flipped edge pixels, not as a luminance change: no ceiling
  return cellValues(amps, plan, bilevel, bilevel ? undefined : coarsen(ceilingMap(activity, luma, darkFlat), plan.dims));
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
  for (let i = 0; i < out.length; i++) {
    const dark = math.min(1, (luma[i] + 1.5 * FLAT_LUMA_KNEE) / (2.5 * FLAT_LUMA_KNEE));
    // issue 34: sparse bright detail on black (a star field): a few bright points give the cell a high mean
    // activity, but the mark is spread over the whole cell, and on its black, flat pixels the eye and SSIM see it as
    // on a flat cell. Texture hides the mark only in the share of the cell that is not dark and flat (a flat cell,
    // a black frame, keeps its ceiling: its activity is ~0 either way).
    const textured = darkFlat ? 1 - darkFlat[i] : 1;
    out[i] = math.sqrt((FLAT_VARIANCE + TEXTURE_VARIANCE_PER_ACTIVITY * activity[i] * textured) / INTERP_ENERGY) * dark;
  }
  return out;
}
/** Luma (0–255) below which a flat pixel counts as dark for the ceiling (see ceilingMap). */
export const DARK_FLAT_LUMA = 24;
/** |dx| + |dy| (luma levels) below which a pixel counts as flat for the ceiling. */
export const DARK_FLAT_ACTIVITY = 8;

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
 * 8-bit rasters up to this size move into the mark kernel's memory whole: the activity pass runs there, the rows
 * are marked in place and the encoder reads them from there (one copy of the pixels instead of one in and one out
 * per chunk). Larger ones go through it in chunks, so that no kernel ever holds more than the pool keeps.
 */
export const WHOLE_RASTER_BYTES = 48 * 1024 * 1024;

/** The raster to encode (it may have moved into the kernel's memory) and what marks its rows. */
export interface PreparedMark {
  raster: Raster;
  rows: RowsHook;
}

/**
 * Moves an 8-bit raster into the kernel's pixel area and computes its cell statistics there (the same as
 * rasterActivity's); returns them with the raster's pixels in the kernel.
 */
export function kernelActivity(kernel: MarkKernel, r: Raster & { data: Uint8Array }, nx: number, ny: number): { stats: CellStats; pixels: Uint8Array } {
  const { width: w, height: h, channels: ch } = r;
  const step = activityStep(w, h);
  const { cxOf, cyOf } = activityTables(w, h, nx, ny, step);
  kernel.prepare(w, r.data.byteLength, { cells: nx * ny, sampledRows: cyOf.length });
  const pixels = kernel.pixels(r.data.byteLength);
  pixels.set(r.data);
  const { scale, darkV, flatA } = activityUnits(r);
  const stats = cellStats(kernel.activity(w, h, ch, r.colorChannels === 1, step, cxOf, cyOf, darkV, flatA), scale);
  return { stats, pixels: new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength) };
}

/** An 8-bit raster moved into the kernel, its activity summed there, and its rows marked there on demand. */
function markWholeInKernel(kernel: MarkKernel, r: Raster & { data: Uint8Array }, plan: MarkPlan): PreparedMark {
  const { width: w, height: h, channels: ch } = r;
  const { stats, pixels } = kernelActivity(kernel, r, plan.dims[0][0], plan.dims[0][1]);
  const rows = new MarkRows(w, h, plan.dims, cellsOf(stats, plan, false), [0, 1, 2, 3].map((slot) => kernel.profile(slot, w)));
  const rowBytes = w * ch;
  return {
    raster: { ...r, data: pixels },
    rows: (y0, y1) => {
      for (let y = y0; y < y1; y++) {
        rows.row(y);
        kernel.markRow(y * rowBytes, w, ch, rows.slots, rows.weight[0], rows.weight[1]);
      }
    },
  };
}

/**
 * Prepares the mark of a decoded raster (cell values from its activity) and returns the raster to encode with
 * what marks its rows, on demand: consecutive row ranges, top to bottom, so the encoder can start on the first
 * rows while later ones are marked. The returned raster lives in the kernel's memory when it moved there: it is
 * valid while the kernel is held.
 */
export function prepareMark(r: Raster, plan: MarkPlan, kernel: MarkKernel, wholeBytes = WHOLE_RASTER_BYTES): PreparedMark {
  // every 8-bit raster but 1-bit sources goes through the WebAssembly kernel
  const eightBit = (x: Raster): x is Raster & { data: Uint8Array } => x.data instanceof Uint8Array && !x.bilevel;
  if (eightBit(r) && r.data.byteLength <= wholeBytes) return markWholeInKernel(kernel, r, plan);
  const values = markCells(r, plan);
  if (eightBit(r)) return { raster: r, rows: markInKernel(kernel, r, r.data, values, plan.dims) };
  return { raster: r, rows: markInPlace(r, values, plan.dims) };
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
    const prepared = prepareMark(raster, plan, kernel);
    const data = await encodeRaster(input, prepared.raster, header, prepared.rows);
    return { data, format: header.format, width: raster.width, height: raster.height };
  });
}
