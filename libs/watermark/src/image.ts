/** Small float-image helpers (luma planes). */
/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;
export interface Plane {
  w: number;
  h: number;
  d: Float32Array;
}

/** Area-average downscale (or bilinear upscale) to tw x th. */
export function resize(src: Plane, tw: number, th: number): Plane {
  const out = new Float32Array(tw * th);
  const sx = src.w / tw;
  const sy = src.h / th;
  if (sx <= 1 && sy <= 1) {
    for (let y = 0; y < th; y++) for (let x = 0; x < tw; x++) out[y * tw + x] = sample(src, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5);
    return { w: tw, h: th, d: out };
  }
  // box filter via separable accumulation; the horizontal pass row by row (a column at a time read the source
  // across its rows, a cache miss per pixel), each output summed in the same order as before
  const tmp = new Float32Array(tw * src.h);
  for (let y = 0; y < src.h; y++) {
    const row = y * src.w;
    for (let x = 0; x < tw; x++) {
      const a = x * sx;
      const b = math.min(src.w, (x + 1) * sx);
      let acc = 0;
      let wsum = 0;
      for (let i = math.floor(a); i < b; i++) {
        const wgt = math.min(i + 1, b) - math.max(i, a);
        acc += src.d[row + i] * wgt;
        wsum += wgt;
      }
      tmp[y * tw + x] = acc / wsum;
    }
  }
  for (let y = 0; y < th; y++) {
    const a = y * sy;
    const b = math.min(src.h, (y + 1) * sy);
    for (let x = 0; x < tw; x++) {
      let acc = 0;
      let wsum = 0;
      for (let i = math.floor(a); i < b; i++) {
        const wgt = math.min(i + 1, b) - math.max(i, a);
        acc += tmp[i * tw + x] * wgt;
        wsum += wgt;
      }
      out[y * tw + x] = acc / wsum;
    }
  }
  return { w: tw, h: th, d: out };
}

/** Bilinear sample with edge clamping. */
export function sample(p: Plane, x: number, y: number): number {
  const xc = x < 0 ? 0 : x > p.w - 1 ? p.w - 1 : x;
  const yc = y < 0 ? 0 : y > p.h - 1 ? p.h - 1 : y;
  const x0 = math.min(p.w - 2, math.floor(xc));
  const y0 = math.min(p.h - 2, math.floor(yc));
  if (x0 < 0 || y0 < 0) return p.d[0];
  const fx = xc - x0;
  const fy = yc - y0;
  const i = y0 * p.w + x0;
  const a = p.d[i] + (p.d[i + 1] - p.d[i]) * fx;
  const b = p.d[i + p.w] + (p.d[i + p.w + 1] - p.d[i + p.w]) * fx;
  return a + (b - a) * fy;
}

/** 3x3 homography (row-major), maps inspected pixel coordinates to original pixel coordinates. */
export type Homography = Float64Array;

export function applyH(H: Homography, x: number, y: number): [number, number] {
  const z = H[6] * x + H[7] * y + H[8];
  return [(H[0] * x + H[1] * y + H[2]) / z, (H[3] * x + H[4] * y + H[5]) / z];
}

export function mulH(A: Homography, B: Homography): Homography {
  const out = new Float64Array(9);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) out[i * 3 + j] = A[i * 3] * B[j] + A[i * 3 + 1] * B[3 + j] + A[i * 3 + 2] * B[6 + j];
  return out;
}

export function scaleH(sx: number, sy: number): Homography {
  return Float64Array.from([sx, 0, 0, 0, sy, 0, 0, 0, 1]);
}

/** Solves A x = b (n x n, Gaussian elimination with partial pivoting); null when singular. */
export function solve(A: Float64Array, b: Float64Array, n: number): Float64Array | null {
  const M = Float64Array.from(A);
  const v = Float64Array.from(b);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (math.abs(M[r * n + c]) > math.abs(M[p * n + c])) p = r;
    if (math.abs(M[p * n + c]) < 1e-12) return null;
    if (p !== c) {
      for (let k = 0; k < n; k++) {
        const t = M[c * n + k];
        M[c * n + k] = M[p * n + k];
        M[p * n + k] = t;
      }
      const t = v[c];
      v[c] = v[p];
      v[p] = t;
    }
    for (let r = c + 1; r < n; r++) {
      const f = M[r * n + c] / M[c * n + c];
      if (f === 0) continue;
      for (let k = c; k < n; k++) M[r * n + k] -= f * M[c * n + k];
      v[r] -= f * v[c];
    }
  }
  const x = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = v[r];
    for (let k = r + 1; k < n; k++) s -= M[r * n + k] * x[k];
    x[r] = s / M[r * n + r];
  }
  return x;
}

/** Inverse of a 3x3 homography (adjugate / determinant). */
export function invertH(H: Homography): Homography {
  const [a, b, c, d, e, f, g, h, i] = H;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const inv = Float64Array.from([A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d]);
  for (let k = 0; k < 9; k++) inv[k] /= det;
  return inv;
}

/** Luma tolerance of a uniform canvas fill (JPEG leaves flat areas within a few levels). */
export const FILL_TOLERANCE = 6;

/**
 * The canvas an editor filled around a rotated image, whatever its colour: the pixels reached from each of the four
 * corners through pixels within FILL_TOLERANCE of that corner's value (1 = in the region).
 */
export function canvasFillRegion(d: Float32Array, w: number, h: number): Uint8Array {
  const n = w * h;
  const region = new Uint8Array(n);
  const queue = new Int32Array(n);
  for (const seed of [0, w - 1, (h - 1) * w, n - 1]) {
    if (region[seed]) continue;
    const c = d[seed];
    let head = 0;
    let tail = 0;
    queue[tail++] = seed;
    region[seed] = 1;
    while (head < tail) {
      const k = queue[head++];
      const x = k % w;
      if (x > 0 && !region[k - 1] && math.abs(d[k - 1] - c) <= FILL_TOLERANCE) { region[k - 1] = 1; queue[tail++] = k - 1; }
      if (x < w - 1 && !region[k + 1] && math.abs(d[k + 1] - c) <= FILL_TOLERANCE) { region[k + 1] = 1; queue[tail++] = k + 1; }
      if (k >= w && !region[k - w] && math.abs(d[k - w] - c) <= FILL_TOLERANCE) { region[k - w] = 1; queue[tail++] = k - w; }
      if (k < n - w && !region[k + w] && math.abs(d[k + w] - c) <= FILL_TOLERANCE) { region[k + w] = 1; queue[tail++] = k + w; }
    }
  }
  return region;
}

/** A region (1 = in) grown by r pixels in every direction (a square's reach: a max filter, rows then columns). */
export function growRegion(region: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const rows = new Uint8Array(region.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!region[y * w + x]) continue;
      for (let xx = math.max(0, x - r); xx <= math.min(w - 1, x + r); xx++) rows[y * w + xx] = 1;
    }
  }
  const out = new Uint8Array(region.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!rows[y * w + x]) continue;
      for (let yy = math.max(0, y - r); yy <= math.min(h - 1, y + r); yy++) out[yy * w + x] = 1;
    }
  }
  return out;
}

/**
 * Width of a resized or recompressed copy's fill edge: the ramp between the fill and the picture, outside the fill's
 * tolerance, and along the frame where a rotated picture's corner meets it, the blend of a fill wedge narrower than a
 * pixel, connected to no corner. Left in, a bright fill's edge dominates a dark picture's variance: a night photo's
 * copy (crop > JPEG > contrast > rotation on white > scale) scored 0.21 at its true geometry, 0.94 without these
 * pixels, and 0.72 at a wrong scale that maps them outside the original.
 */
export const FILL_EDGE = 2;

/** The region with the frame's outer r pixels added (in place). */
export function withFrame(region: Uint8Array, w: number, h: number, r: number): Uint8Array {
  for (let y = 0; y < h; y++) {
    if (y < r || y >= h - r) region.fill(1, y * w, (y + 1) * w);
    else {
      region.fill(1, y * w, y * w + math.min(r, w));
      region.fill(1, y * w + math.max(0, w - r), (y + 1) * w);
    }
  }
  return region;
}

/** The canvas fill (canvasFillRegion) grown by FILL_EDGE, and the frame's outer FILL_EDGE pixels. */
export function fillWithEdge(d: Float32Array, w: number, h: number): Uint8Array {
  return withFrame(growRegion(canvasFillRegion(d, w, h), w, h, FILL_EDGE), w, h, FILL_EDGE);
}

/** Bilinear sample of plane p at index coordinates (x, y); NaN outside. */
export function sampleOrNaN(d: Float32Array, w: number, h: number, x: number, y: number): number {
  if (!(x >= 0 && y >= 0 && x <= w - 1 && y <= h - 1)) return num.NaN;
  const x0 = math.min(w - 2, math.floor(x));
  const y0 = math.min(h - 2, math.floor(y));
  const fx = x - x0;
  const fy = y - y0;
  const i = y0 * w + x0;
  const top = d[i] + (d[i + 1] - d[i]) * fx;
  const bot = d[i + w] + (d[i + w + 1] - d[i + w]) * fx;
  return top + (bot - top) * fy;
}

/**
 * Cubic (Catmull-Rom) sample at index coordinates (x, y); NaN outside, bilinear within a pixel of the border.
 * Bilinear interpolation blurs by an amount that depends on the sub-pixel phase, which varies across a rotated or
 * rescaled image: no single FIR filter can undo it, so it stays in the residual as host leakage.
 */
export function sampleCubicOrNaN(d: Float32Array, w: number, h: number, x: number, y: number): number {
  if (!(x >= 1 && y >= 1 && x < w - 2 && y < h - 2)) return sampleOrNaN(d, w, h, x, y);
  const x0 = math.floor(x);
  const y0 = math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const wx0 = ((-0.5 * fx + 1) * fx - 0.5) * fx;
  const wx1 = (1.5 * fx - 2.5) * fx * fx + 1;
  const wx2 = ((-1.5 * fx + 2) * fx + 0.5) * fx;
  const wx3 = (0.5 * fx - 0.5) * fx * fx;
  const wy0 = ((-0.5 * fy + 1) * fy - 0.5) * fy;
  const wy1 = (1.5 * fy - 2.5) * fy * fy + 1;
  const wy2 = ((-1.5 * fy + 2) * fy + 0.5) * fy;
  const wy3 = (0.5 * fy - 0.5) * fy * fy;
  let i = (y0 - 1) * w + x0 - 1;
  const r0 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r1 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r2 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  i += w;
  const r3 = wx0 * d[i] + wx1 * d[i + 1] + wx2 * d[i + 2] + wx3 * d[i + 3];
  return wy0 * r0 + wy1 * r1 + wy2 * r2 + wy3 * r3;
}

/**
 * Clips a residual (NaN = none) in place to ±(5 × its mean absolute value + 1): a few pixels the prediction missed
 * (an edge off by a pixel, a speck) would otherwise outweigh the cells they fall on. Returns how many values it has.
 */
export function clipResidual(r: Float32Array): number {
  let absSum = 0;
  let cnt = 0;
  for (let k = 0; k < r.length; k++) {
    const v = r[k];
    if (v !== v) continue;
    absSum += math.abs(v);
    cnt++;
  }
  if (cnt === 0) return 0;
  const clip = 5 * (absSum / cnt) + 1;
  for (let k = 0; k < r.length; k++) if (r[k] > clip) r[k] = clip; else if (r[k] < -clip) r[k] = -clip;
  return cnt;
}

/**
 * Takes from each value of p (w x h, NaN = none) the mean of the values within `radius` pixels (a square window, NaN
 * left out), in place: summed-area tables, so the cost does not grow with the window.
 */
export function subtractLocalMean(p: Float32Array, w: number, h: number, radius: number): void {
  const W1 = w + 1;
  const sum = new Float64Array(W1 * (h + 1));
  const cnt = new Float64Array(W1 * (h + 1));
  for (let y = 0; y < h; y++) {
    let rs = 0;
    let rc = 0;
    for (let x = 0; x < w; x++) {
      const v = p[y * w + x];
      if (v === v) {
        rs += v;
        rc++;
      }
      const o = (y + 1) * W1 + x + 1;
      sum[o] = sum[o - W1] + rs;
      cnt[o] = cnt[o - W1] + rc;
    }
  }
  for (let y = 0; y < h; y++) {
    const y0 = y - radius < 0 ? 0 : y - radius;
    const y1 = y + radius + 1 > h ? h : y + radius + 1;
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      const v = p[k];
      if (v !== v) continue;
      const x0 = x - radius < 0 ? 0 : x - radius;
      const x1 = x + radius + 1 > w ? w : x + radius + 1;
      const a = y0 * W1 + x0;
      const b = y0 * W1 + x1;
      const c = y1 * W1 + x0;
      const d = y1 * W1 + x1;
      p[k] = v - (sum[d] - sum[b] - sum[c] + sum[a]) / (cnt[d] - cnt[b] - cnt[c] + cnt[a]);
    }
  }
}
