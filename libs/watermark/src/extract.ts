import { checkInput, decodeLuma, isWatermarkError, LumaPlane } from './codec';
import { HeaderInfo } from './format';
import { applyH, Homography, Plane } from './image';
import { CODED_BITS, decodeSoft, DecodedPayload } from './payload';
import { amplitudeMaps, axisTable, buildLayers, cellActivity, fineCellSize, gridDims, Layer } from './pattern';
import { register } from './register';
import { DEFAULT_MAX_PIXELS, ExtractOptions, ExtractResult, WatermarkErrorCode, WatermarkKey } from './types';

/** A check-passing candidate needs at least this confidence to be reported as `detected`. */
export const DETECT_THRESHOLD = 0.2;
/** Registration is trusted above this NCC of the aligned overlap. */
const MIN_ALIGN_NCC = 0.6;

/** Per-coded-bit z-scores of one layer. */
function zFromCells(layer: Layer, amp: Float32Array, e: Float32Array, v: Float32Array): Float64Array {
  const soft = new Float64Array(CODED_BITS);
  const vr = new Float64Array(CODED_BITS);
  for (let c = 0; c < e.length; c++) {
    if (!(v[c] > 0)) continue;
    const a = amp[c];
    soft[layer.bit[c]] += (a * layer.chip[c] * e[c]) / v[c];
    vr[layer.bit[c]] += (a * a) / v[c];
  }
  for (let i = 0; i < CODED_BITS; i++) soft[i] = vr[i] > 0 ? soft[i] / Math.sqrt(vr[i]) : 0;
  return soft;
}

function smoothCells(x: Float32Array, nx: number, ny: number, r: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let y = 0; y < ny; y++) {
    for (let xx = 0; xx < nx; xx++) {
      let s = 0;
      let n = 0;
      for (let b = Math.max(0, y - r); b <= Math.min(ny - 1, y + r); b++) {
        for (let a = Math.max(0, xx - r); a <= Math.min(nx - 1, xx + r); a++) {
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

interface CellSums {
  p: Float32Array; // sum w*r
  w1: Float32Array; // sum w
  w2: Float32Array; // sum w^2
  r2: Float32Array; // sum w*r^2
}

/** Accumulates bilinear cell projections of values r (NaN = skip) at normalised positions (u, v) in [0,1]. */
function accumulate(nx: number, ny: number, count: number, pos: (k: number) => [number, number], r: Float32Array): CellSums {
  const s: CellSums = { p: new Float32Array(nx * ny), w1: new Float32Array(nx * ny), w2: new Float32Array(nx * ny), r2: new Float32Array(nx * ny) };
  for (let k = 0; k < count; k++) {
    const val = r[k];
    if (Number.isNaN(val)) continue;
    const [u, v] = pos(k);
    let fx = u * nx - 0.5;
    let fy = v * ny - 0.5;
    let ix = Math.floor(fx);
    let iy = Math.floor(fy);
    if (ix < 0) { ix = 0; fx = 0; } else if (ix >= nx - 1) { ix = nx - 2; fx = 1; } else fx -= ix;
    if (iy < 0) { iy = 0; fy = 0; } else if (iy >= ny - 1) { iy = ny - 2; fy = 1; } else fy -= iy;
    const c = iy * nx + ix;
    const ws = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy];
    const cs = [c, c + 1, c + nx, c + nx + 1];
    for (let j = 0; j < 4; j++) {
      const w = ws[j];
      if (w === 0) continue;
      s.p[cs[j]] += w * val;
      s.w1[cs[j]] += w;
      s.w2[cs[j]] += w * w;
      s.r2[cs[j]] += w * val * val;
    }
  }
  return s;
}

function decodeLayers(zs: Float64Array[], key: WatermarkKey): DecodedPayload | null {
  const combos: Float64Array[] = [];
  const sum = new Float64Array(CODED_BITS);
  for (const z of zs) for (let i = 0; i < CODED_BITS; i++) sum[i] += z[i];
  combos.push(sum, ...zs);
  let best: DecodedPayload | null = null;
  for (const soft of combos) {
    const d = decodeSoft(soft, key);
    if (d.tagOk && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) break;
  }
  return best;
}

export function confidenceOf(d: DecodedPayload): number {
  return Math.max(0, Math.min(1, d.agreement));
}

/** Registered decoding: residual against the aligned original, projected on the cells of each layer. */
function registeredDecode(O: LumaPlane, I: LumaPlane, H: Homography, key: WatermarkKey): DecodedPayload | null {
  const n = I.width * I.height;
  const oPlane: Plane = { w: O.width, h: O.height, d: O.data };
  const qx = new Float32Array(n);
  const qy = new Float32Array(n);
  const ov = new Float32Array(n).fill(Number.NaN);
  const bins = 64;
  const bs = new Float64Array(bins);
  const bc = new Float64Array(bins);
  for (let y = 0; y < I.height; y++) {
    for (let x = 0; x < I.width; x++) {
      const k = y * I.width + x;
      const [a, b] = applyH(H, x + 0.5, y + 0.5);
      qx[k] = a;
      qy[k] = b;
      const sx = a - 0.5;
      const sy = b - 0.5;
      if (sx < 0 || sy < 0 || sx > O.width - 1 || sy > O.height - 1) continue;
      const x0 = Math.min(O.width - 2, Math.floor(sx));
      const y0 = Math.min(O.height - 2, Math.floor(sy));
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * O.width + x0;
      const d = oPlane.d;
      const top = d[i] + (d[i + 1] - d[i]) * fx;
      const bot = d[i + O.width] + (d[i + O.width + 1] - d[i + O.width]) * fx;
      const o = top + (bot - top) * fy;
      ov[k] = o;
      const bin = Math.min(bins - 1, Math.max(0, Math.floor((o / 256) * bins)));
      bs[bin] += I.data[k];
      bc[bin] += 1;
    }
  }
  // photometric mapping original -> inspected (brightness, contrast, gamma, grayscale)
  const lut = new Float64Array(bins).fill(Number.NaN);
  for (let b = 0; b < bins; b++) if (bc[b] >= 4) lut[b] = bs[b] / bc[b];
  let last = -1;
  for (let b = 0; b < bins; b++) {
    if (Number.isNaN(lut[b])) continue;
    if (last < 0) for (let j = 0; j < b; j++) lut[j] = lut[b];
    else for (let j = last + 1; j < b; j++) lut[j] = lut[last] + ((lut[b] - lut[last]) * (j - last)) / (b - last);
    last = b;
  }
  if (last < 0) return null;
  for (let j = last + 1; j < bins; j++) lut[j] = lut[last];
  const r = new Float32Array(n);
  let absSum = 0;
  let cnt = 0;
  for (let k = 0; k < n; k++) {
    const o = ov[k];
    if (Number.isNaN(o)) {
      r[k] = Number.NaN;
      continue;
    }
    const t = (o / 256) * bins - 0.5;
    const b0 = Math.max(0, Math.min(bins - 2, Math.floor(t)));
    const f = Math.max(0, Math.min(1, t - b0));
    r[k] = I.data[k] - (lut[b0] + (lut[b0 + 1] - lut[b0]) * f);
    absSum += Math.abs(r[k]);
    cnt++;
  }
  if (cnt < 64) return null;
  const clip = 5 * (absSum / cnt) + 1;
  for (let k = 0; k < n; k++) if (r[k] > clip) r[k] = clip; else if (r[k] < -clip) r[k] = -clip;
  const dims = gridDims(O.fullWidth, O.fullHeight);
  const layers = buildLayers(key, dims);
  const act = cellActivity(O.data, O.width, O.height, dims[0][0], dims[0][1], 1);
  const amps = amplitudeMaps(act, dims);
  const zs = layers.map((layer, l) => {
    const { nx, ny } = layer;
    const s = accumulate(nx, ny, n, (k) => [qx[k] / O.width, qy[k] / O.height], r);
    const e = new Float32Array(nx * ny);
    const lv = new Float32Array(nx * ny).fill(-1);
    for (let c = 0; c < e.length; c++) {
      if (s.w1[c] < 0.5) continue;
      e[c] = s.p[c] / s.w1[c];
      lv[c] = Math.max(0, s.r2[c] / s.w1[c] - e[c] * e[c]);
    }
    const sm = smoothCells(lv, nx, ny, 1);
    const v = new Float32Array(nx * ny);
    for (let c = 0; c < e.length; c++) if (s.w1[c] >= 0.5 && sm[c] >= 0) v[c] = ((sm[c] + 0.25) * s.w2[c]) / (s.w1[c] * s.w1[c]);
    return zFromCells(layer, amps[l], e, v);
  });
  return decodeLayers(zs, key);
}

/** Blind decoding: the inspected image is assumed to be the whole marked image, possibly rescaled. */
function blindDecode(I: LumaPlane, key: WatermarkKey): DecodedPayload | null {
  const guesses = [1, 0.5, 0.25, 0.75, 2 / 3, 1 / 3];
  const seen = new Set<string>();
  const n = I.width * I.height;
  let best: DecodedPayload | null = null;
  for (const g of guesses) {
    const dims = gridDims(Math.round(I.fullWidth / g), Math.round(I.fullHeight / g));
    const id = JSON.stringify(dims);
    if (seen.has(id)) continue;
    seen.add(id);
    if (dims[0][0] > I.width || dims[0][1] > I.height) continue; // cells below one pixel: nothing survives
    const layers = buildLayers(key, dims);
    const act = cellActivity(I.data, I.width, I.height, dims[0][0], dims[0][1], 1);
    const amps = amplitudeMaps(act, dims);
    const zs = layers.map((layer, l) => {
      const { nx, ny } = layer;
      const s = accumulate(nx, ny, n, (k) => [((k % I.width) + 0.5) / I.width, (Math.floor(k / I.width) + 0.5) / I.height], I.data);
      const m = new Float32Array(nx * ny);
      for (let c = 0; c < m.length; c++) m[c] = s.w1[c] > 0 ? s.p[c] / s.w1[c] : 0;
      const e = new Float32Array(nx * ny);
      const e2 = new Float32Array(nx * ny);
      for (let y = 0; y < ny; y++) {
        for (let x = 0; x < nx; x++) {
          const c = y * nx + x;
          let acc = 0;
          let cntN = 0;
          if (x > 0) { acc += m[c - 1]; cntN++; }
          if (x < nx - 1) { acc += m[c + 1]; cntN++; }
          if (y > 0) { acc += m[c - nx]; cntN++; }
          if (y < ny - 1) { acc += m[c + nx]; cntN++; }
          e[c] = m[c] - acc / cntN;
          e2[c] = e[c] * e[c];
        }
      }
      const sm = smoothCells(e2, nx, ny, 2);
      const v = new Float32Array(nx * ny);
      for (let c = 0; c < v.length; c++) v[c] = sm[c] + 0.5;
      return zFromCells(layer, amps[l], e, v);
    });
    const d = decodeLayers(zs, key);
    if (d && (!best || d.agreement > best.agreement)) best = d;
    if (best && confidenceOf(best) >= DETECT_THRESHOLD) break;
  }
  return best;
}

function result(d: DecodedPayload | null, method: 'registered' | 'blind'): ExtractResult | null {
  if (!d || !d.tagOk) return null;
  const confidence = confidenceOf(d);
  return { status: confidence >= DETECT_THRESHOLD ? 'detected' : 'inconclusive', payload: d.payload, confidence, method };
}

/** Working scale that brings the original's fine cells to about 4 pixels. */
function workScale(h: HeaderInfo): number {
  return Math.min(1, 4 / fineCellSize(h.width, h.height));
}

export async function extractImage(inspected: Buffer, original: Buffer | null, options: ExtractOptions): Promise<ExtractResult> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  let ih: HeaderInfo;
  try {
    ih = checkInput(inspected, maxPixels);
  } catch (e) {
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
  let registeredTried = false;
  let weak: ExtractResult | null = null;
  try {
    if (original) {
      let oh: HeaderInfo;
      try {
        oh = checkInput(original, maxPixels);
      } catch (e) {
        if (isWatermarkError(e) && e.code !== WatermarkErrorCode.CORRUPT_IMAGE) return { status: 'unsupported', confidence: 0, method: 'none' };
        return { status: 'error', confidence: 0, method: 'none' };
      }
      const s = workScale(oh);
      const maxInspectedScale = Math.min(s, Math.sqrt(8_000_000 / (ih.width * ih.height)));
      let O: LumaPlane;
      try {
        O = await decodeLuma(original, oh, s);
      } catch {
        return { status: 'error', confidence: 0, method: 'none' };
      }
      const I = await decodeLuma(inspected, ih, Math.min(1, maxInspectedScale));
      const reg = register({ w: O.width, h: O.height, d: O.data }, { w: I.width, h: I.height, d: I.data });
      if (reg && reg.ncc >= MIN_ALIGN_NCC) {
        registeredTried = true;
        const r = result(registeredDecode(O, I, reg.H, options.key), 'registered');
        if (r && r.status === 'detected') return r;
        weak = r;
      }
    }
    const blindScale = Math.min(1, Math.sqrt(2_000_000 / (ih.width * ih.height)));
    const Ib = await decodeLuma(inspected, ih, blindScale);
    const r = result(blindDecode(Ib, options.key), 'blind');
    if (r && (r.status === 'detected' || !weak || r.confidence > weak.confidence)) return r;
    if (weak) return weak;
    return { status: 'not_detected', confidence: 0, method: registeredTried ? 'registered' : 'blind' };
  } catch (e) {
    if (isWatermarkError(e)) return { status: 'unsupported', confidence: 0, method: 'none' };
    return { status: 'error', confidence: 0, method: 'none' };
  }
}
