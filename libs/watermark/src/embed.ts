import { checkInput, decodeRaster, encodeRaster, Raster } from './codec';
import { convEncode, infoBits, checkPayload } from './payload';
import { amplitudeMaps, axisTable, buildLayers, gridDims, isSmallGrid } from './pattern';
import { DEFAULT_MAX_PIXELS, EmbedOptions, EmbedResult, WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Mean squared luminance change the mark aims at (about 43 dB PSNR before rounding). */
export const TARGET_MSE = 3.2;
/** Mean bilinear-interpolation energy factor of a random-sign cell field ((2/3)^2). */
const INTERP_ENERGY = 4 / 9;
/** Share of the mark energy on the coarse layer (it survives low-pass edits better). */
const COARSE_SHARE = 0.6;

/** Per-cell activity (mean |dx|+|dy| of the luma) of an interleaved raster on an nx x ny grid. */
function rasterActivity(r: Raster, nx: number, ny: number): Float32Array {
  const { width: w, height: h, channels: ch, colorChannels: cc, data } = r;
  const scale = data instanceof Uint16Array ? 1 / 257 : 1;
  const step = w * h > 4_000_000 ? 4 : w * h > 1_000_000 ? 2 : 1;
  const sum = new Float32Array(nx * ny);
  const cnt = new Float32Array(nx * ny);
  const cxOf = new Int32Array(w);
  for (let x = 0; x < w; x++) cxOf[x] = math.min(nx - 1, math.floor(((x + 0.5) * nx) / w));
  const lum = (i: number): number => (cc === 1 ? data[i] : (data[i] + 2 * data[i + 1] + data[i + 2]) * 0.25);
  for (let y = 0; y + 1 < h; y += step) {
    const cy = math.min(ny - 1, math.floor(((y + 0.5) * ny) / h));
    const row = y * w * ch;
    const below = row + w * ch;
    for (let x = 0; x + 1 < w; x += step) {
      const i = row + x * ch;
      const v = lum(i);
      const a = math.abs(lum(i + ch) - v) + math.abs(lum(below + x * ch) - v);
      const c = cy * nx + cxOf[x];
      sum[c] += a * scale;
      cnt[c] += 1;
    }
  }
  for (let i = 0; i < sum.length; i++) sum[i] = cnt[i] > 0 ? sum[i] / cnt[i] : 0;
  return sum;
}

/** Energy factor of small images (see isSmallGrid): more energy, about -1.5 dB PSNR. */
export const SMALL_BOOST = 1.6;

/** Cell values (signed amplitudes) of each layer for this payload. */
export function markCells(r: Raster, payload: bigint, key: WatermarkKey): { dims: [number, number][]; values: Float32Array[] } {
  const dims = gridDims(r.width, r.height);
  const layers = buildLayers(key, dims);
  const coded = convEncode(infoBits(payload, key));
  const act = rasterActivity(r, dims[0][0], dims[0][1]);
  const amps = amplitudeMaps(act, dims);
  const values = layers.map((layer, l) => {
    const a = amps[l];
    let ms = 0;
    for (let i = 0; i < a.length; i++) ms += a[i] * a[i];
    ms /= a.length;
    const share = l === 0 ? 1 - COARSE_SHARE : COARSE_SHARE;
    const gain = math.sqrt((TARGET_MSE * (isSmallGrid(dims) ? SMALL_BOOST : 1) * share) / (INTERP_ENERGY * ms)) * (r.bilevel ? 12 : 1);
    const v = new Float32Array(a.length);
    for (let c = 0; c < v.length; c++) v[c] = a[c] * gain * layer.chip[c] * (coded[layer.bit[c]] ? 1 : -1);
    return v;
  });
  return { dims, values };
}

/** Clamping table for 8-bit samples plus an integer delta in [-LUT_OFFSET, LUT_OFFSET]. */
const LUT_OFFSET = 384;
const CLAMP = Uint8Array.from({ length: 256 + 2 * LUT_OFFSET }, (_, i) => math.max(0, math.min(255, i - LUT_OFFSET)));

/** Adds the mark to the raster's colour channels in one pass over the pixels. */
export function applyMark(r: Raster, payload: bigint, key: WatermarkKey): void {
  const { width: w, height: h, channels: ch, colorChannels: cc, data } = r;
  const { dims, values } = markCells(r, payload, key);
  const xt = dims.map(([nx]) => axisTable(w, nx));
  const yt = dims.map(([, ny]) => axisTable(h, ny));
  const L = dims.length;
  // x-interpolated cell-row profiles: A = profile of cell row iy, B = profile(iy + 1) - A, per layer
  const A = dims.map(() => new Float32Array(w));
  const B = dims.map(() => new Float32Array(w));
  const bandOf = new Int32Array(L).fill(-1);
  const prevF = new Float64Array(L);
  const dF = new Float64Array(L);
  const delta = new Float32Array(w);
  const slope = new Float32Array(w);
  const profile = (l: number, iy: number, out: Float32Array): void => {
    const nx = dims[l][0];
    const v = values[l];
    const { i0, f } = xt[l];
    const o = iy * nx;
    for (let x = 0; x < w; x++) {
      const i = o + i0[x];
      out[x] = v[i] + (v[i + 1] - v[i]) * f[x];
    }
  };
  const deep = data instanceof Uint16Array;
  const maxV = deep ? 65535 : 255;
  const unit = deep ? 257 : 1;
  const u8 = deep ? null : (data);
  const bi = r.bilevel ? new Uint8Array(data as Uint8Array) : null;
  for (let y = 0; y < h; y++) {
    // the mark is linear in y inside a band of cell rows: add a constant slope row by row, recompute at band changes
    let exact = y === 0;
    for (let l = 0; l < L; l++) {
      const iy = yt[l].i0[y];
      if (iy !== bandOf[l]) {
        profile(l, iy, A[l]);
        profile(l, iy + 1, B[l]);
        const a = A[l];
        const b = B[l];
        for (let x = 0; x < w; x++) b[x] -= a[x];
        bandOf[l] = iy;
        exact = true;
      }
      const fy = yt[l].f[y];
      const step = y > 0 ? fy - prevF[l] : 0;
      if (math.abs(step - dF[l]) > 1e-5) exact = true;
      dF[l] = step;
      prevF[l] = fy;
    }
    if (exact) {
      delta.fill(0);
      slope.fill(0);
      for (let l = 0; l < L; l++) {
        const a = A[l];
        const b = B[l];
        const fy = yt[l].f[y];
        const sl = yt[l].f[math.min(h - 1, y + 1)] - fy;
        for (let x = 0; x < w; x++) {
          delta[x] += a[x] + b[x] * fy;
          slope[x] += b[x] * sl;
        }
      }
      // the slope is used only while no layer changes band; a change forces an exact row
    }
    const row = y * w * ch;
    if (u8 && cc === 3 && !bi) {
      // hot path: advance by the slope (inside a band), round, add through the clamping table, in one loop
      addRowRgb8(u8, row, w, ch, delta, slope, !exact);
      continue;
    }
    if (!exact) for (let x = 0; x < w; x++) delta[x] += slope[x];
    if (bi) {
      embedBilevelRow(bi, data as Uint8Array, w, h, y, delta);
      continue;
    }
    for (let x = 0; x < w; x++) {
      const d = delta[x] * unit;
      const p = row + x * ch;
      for (let c = 0; c < cc; c++) {
        const nv = math.round(data[p + c] + d);
        data[p + c] = nv < 0 ? 0 : nv > maxV ? maxV : nv;
      }
    }
  }
}

/** Adds one row of the mark to 8-bit RGB(A) samples: optional slope step, rounding, clamping table (kept small: V8 optimises it well). */
function addRowRgb8(u8: Uint8Array, row: number, w: number, ch: number, delta: Float32Array, slope: Float32Array, advance: boolean): void {
  if (advance) {
    for (let x = 0, p = row; x < w; x++, p += ch) {
      const f = delta[x] + slope[x];
      delta[x] = f;
      const d = math.floor(f + LUT_OFFSET + 0.5);
      u8[p] = CLAMP[u8[p] + d];
      u8[p + 1] = CLAMP[u8[p + 1] + d];
      u8[p + 2] = CLAMP[u8[p + 2] + d];
    }
    return;
  }
  for (let x = 0, p = row; x < w; x++, p += ch) {
    const d = math.floor(delta[x] + LUT_OFFSET + 0.5);
    u8[p] = CLAMP[u8[p] + d];
    u8[p + 1] = CLAMP[u8[p + 1] + d];
    u8[p + 2] = CLAMP[u8[p + 2] + d];
  }
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
  const raster = await decodeRaster(input, header);
  applyMark(raster, payload, options.key);
  const data = await encodeRaster(input, raster, header);
  return { data, format: header.format, width: raster.width, height: raster.height };
}
