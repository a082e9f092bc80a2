/** Blind decoding: no original, the inspected image taken as the whole marked image at a few scale guesses. */
import { confidenceOf, decodeLayers, DETECT_THRESHOLD, smoothCells, zFromCells } from './cell-decode';
import { LumaPlane } from './codec';
import { DecodedPayload } from './payload';
import { amplitudeMaps, buildLayers, cellActivity, gridDims } from './pattern';
import { WatermarkKey } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Bilinear taps of n pixels onto `cells` cell centres (the same convention as `accumulate`). */
function taps(n: number, cells: number): { i0: Int32Array; f: Float32Array } {
  const i0 = new Int32Array(n);
  const f = new Float32Array(n);
  for (let x = 0; x < n; x++) {
    let fx = ((x + 0.5) / n) * cells - 0.5;
    let ix = math.floor(fx);
    if (ix < 0) { ix = 0; fx = 0; } else if (ix >= cells - 1) { ix = cells - 2; fx = 1; } else fx -= ix;
    i0[x] = ix;
    f[x] = fx;
  }
  return { i0, f };
}

/** Bilinear cell means of a whole plane on an nx x ny grid (separable, for blind decoding). */
function cellMeans(d: Float32Array, w: number, h: number, nx: number, ny: number): Float32Array {
  const tx = taps(w, nx);
  const ty = taps(h, ny);
  const p = new Float64Array(nx * ny);
  const wsum = new Float64Array(nx * ny);
  const row = new Float64Array(nx);
  const roww = new Float64Array(nx);
  for (let x = 0; x < w; x++) {
    roww[tx.i0[x]] += 1 - tx.f[x];
    roww[tx.i0[x] + 1] += tx.f[x];
  }
  for (let y = 0; y < h; y++) {
    row.fill(0);
    const base = y * w;
    for (let x = 0; x < w; x++) {
      const v = d[base + x];
      const i = tx.i0[x];
      const f = tx.f[x];
      row[i] += v * (1 - f);
      row[i + 1] += v * f;
    }
    const cy = ty.i0[y];
    const fy = ty.f[y];
    const o0 = cy * nx;
    const o1 = o0 + nx;
    for (let i = 0; i < nx; i++) {
      p[o0 + i] += row[i] * (1 - fy);
      p[o1 + i] += row[i] * fy;
      wsum[o0 + i] += roww[i] * (1 - fy);
      wsum[o1 + i] += roww[i] * fy;
    }
  }
  const m = new Float32Array(nx * ny);
  for (let c = 0; c < m.length; c++) m[c] = wsum[c] > 0 ? p[c] / wsum[c] : 0;
  return m;
}

/** Per-pixel weights 1 / (1 + (g / 3)^2), g = largest absolute difference to the 8 neighbours: near 0 on edges. */
const EDGE_T = 3;
export function edgeWeights(d: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const inner = y > 0 && y < h - 1;
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      // inside the border the neighbours need no bounds tests (the largest difference is the same in any order):
      // the blind pass of every extraction without a mark runs this on 2 MP
      const g = inner && x > 0 && x < w - 1 ? innerEdge(d, k, w, h, x, y) : borderEdge(d, w, h, x, y);
      const t = g / EDGE_T;
      out[k] = 1 / (1 + t * t);
    }
  }
  return out;
}

/**
 * Largest absolute difference between pixel (x, y) of a w x h plane (not on its border; k its index) and its 8
 * neighbours, as one max of the eight: a compare-and-branch per neighbour was mispredicted on textured pixels (44
 * against 25 ms on 2 MP of noise). A NaN (never in a decoded plane) would make that max NaN where the branches skip
 * it: such a pixel takes the loop of the border pixels instead.
 */
function innerEdge(d: Float32Array, k: number, w: number, h: number, x: number, y: number): number {
  const v = d[k];
  const g = math.max(
    math.abs(d[k - w - 1] - v),
    math.abs(d[k - w] - v),
    math.abs(d[k - w + 1] - v),
    math.abs(d[k - 1] - v),
    math.abs(d[k + 1] - v),
    math.abs(d[k + w - 1] - v),
    math.abs(d[k + w] - v),
    math.abs(d[k + w + 1] - v),
  );
  return g === g ? g : borderEdge(d, w, h, x, y);
}

/** Largest absolute difference between pixel (x, y) and its neighbours inside the plane (NaN skipped). */
function borderEdge(d: Float32Array, w: number, h: number, x: number, y: number): number {
  const v = d[y * w + x];
  let g = 0;
  for (let dy = -1; dy <= 1; dy++) {
    const yy = y + dy;
    if (yy < 0 || yy >= h) continue;
    for (let dx = -1; dx <= 1; dx++) {
      const xx = x + dx;
      if (xx < 0 || xx >= w) continue;
      const a = math.abs(d[yy * w + xx] - v);
      if (a > g) g = a;
    }
  }
  return g;
}

/** Blind decoding: the inspected image is assumed to be the whole marked image, possibly rescaled. */
export function blindDecode(I: LumaPlane, key: WatermarkKey, robust: boolean): DecodedPayload | null {
  const guesses = robust ? [1, 0.5] : [1, 0.5, 0.25, 0.75, 2 / 3, 1 / 3];
  const pw = robust ? edgeWeights(I.data, I.width, I.height) : null;
  const wI = pw ? pw.map((wk, k) => wk * I.data[k]) : null;
  const seen = new Set<string>();
  let best: DecodedPayload | null = null;
  for (const g of guesses) {
    const dims = gridDims(math.round(I.fullWidth / g), math.round(I.fullHeight / g));
    const id = JSON.stringify(dims);
    if (seen.has(id)) continue;
    seen.add(id);
    if (dims[0][0] > I.width || dims[0][1] > I.height) continue; // cells below one pixel: nothing survives
    const layers = buildLayers(key, dims);
    const act = cellActivity(I.data, I.width, I.height, dims[0][0], dims[0][1], 1);
    const amps = amplitudeMaps(act, dims);
    const zs = layers.map((layer, l) => {
      const { nx, ny } = layer;
      const m = cellMeans(wI ?? I.data, I.width, I.height, nx, ny);
      if (pw) {
        // edge-weighted cell means: ink strokes and other edges hardly count, flat paper carries the mark
        const mw = cellMeans(pw, I.width, I.height, nx, ny);
        for (let c = 0; c < m.length; c++) m[c] = mw[c] > 1e-3 ? m[c] / mw[c] : 0;
      }
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
      const sm = smoothCells(e2, nx, ny, 1);
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
