/**
 * Finds where a page capture (a screenshot / export of one page, possibly cropped, any resolution) sits on
 * the rendered pages of the original document: page, resolution of the capture and offset.
 * Coarse: FFT normalised cross-correlation over a log grid of capture resolutions at 1/8 of the reference
 * resolution; fine: local NCC searches at 1/4, 1/2 and full reference resolution.
 */

export interface Gray {
  width: number;
  height: number;
  data: Float32Array;
}

export interface Location {
  page: number;
  /** Capture pixels per inch of the page. */
  dpi: number;
  /** Top-left corner of the capture on the page, in pixels at `dpi`. */
  x: number;
  y: number;
  score: number;
  fullPage: boolean;
}

/** 2x box downsample. */
export function halve(g: Gray): Gray {
  const w = Math.max(1, g.width >> 1);
  const h = Math.max(1, g.height >> 1);
  const out = new Float32Array(w * h);
  const s = g.data;
  const sw = g.width;
  for (let y = 0; y < h; y++) {
    const y0 = Math.min(g.height - 1, 2 * y);
    const y1 = Math.min(g.height - 1, 2 * y + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.min(sw - 1, 2 * x);
      const x1 = Math.min(sw - 1, 2 * x + 1);
      out[y * w + x] = (s[y0 * sw + x0] + s[y0 * sw + x1] + s[y1 * sw + x0] + s[y1 * sw + x1]) * 0.25;
    }
  }
  return { width: w, height: h, data: out };
}

/** Separable binomial blur [1 4 6 4 1]/16 (edges clamped): makes coarse matching insensitive to sub-pixel phase. */
export function blur(g: Gray): Gray {
  const { width: w, height: h } = g;
  const k = [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16];
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let i = -2; i <= 2; i++) v += k[i + 2] * g.data[y * w + Math.min(w - 1, Math.max(0, x + i))];
      tmp[y * w + x] = v;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let i = -2; i <= 2; i++) v += k[i + 2] * tmp[Math.min(h - 1, Math.max(0, y + i)) * w + x];
      out[y * w + x] = v;
    }
  }
  return { width: w, height: h, data: out };
}

/** Pyramid of 2x box reductions, level 0 = input. */
export function pyramid(g: Gray, minSide = 16): Gray[] {
  const levels = [g];
  while (Math.min(levels[levels.length - 1].width, levels[levels.length - 1].height) >= 2 * minSide) {
    levels.push(halve(levels[levels.length - 1]));
  }
  return levels;
}

/** Resamples by `factor` (< 1 shrinks) from the pyramid level just above the target, bilinear. */
export function resample(pyr: Gray[], factor: number): Gray {
  let level = 0;
  while (level + 1 < pyr.length && factor * 2 ** (level + 1) <= 1) level++;
  const src = pyr[level];
  const f = factor * 2 ** level;
  const w = Math.max(1, Math.round(pyr[0].width * factor));
  const h = Math.max(1, Math.round(pyr[0].height * factor));
  const out = new Float32Array(w * h);
  const sw = src.width;
  const sh = src.height;
  for (let y = 0; y < h; y++) {
    const fy = Math.min(sh - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(sw - 1, Math.max(0, (x + 0.5) / f - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const tx = fx - x0;
      const a = src.data[y0 * sw + x0] * (1 - tx) + src.data[y0 * sw + x1] * tx;
      const b = src.data[y1 * sw + x0] * (1 - tx) + src.data[y1 * sw + x1] * tx;
      out[y * w + x] = a * (1 - ty) + b * ty;
    }
  }
  return { width: w, height: h, data: out };
}

const twiddles = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function fft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  let tw = twiddles.get(n);
  if (!tw) {
    tw = { cos: new Float64Array(n / 2), sin: new Float64Array(n / 2) };
    for (let k = 0; k < n / 2; k++) {
      tw.cos[k] = Math.cos((-2 * Math.PI * k) / n);
      tw.sin[k] = Math.sin((-2 * Math.PI * k) / n);
    }
    twiddles.set(n, tw);
  }
  const sgn = inverse ? -1 : 1;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const stride = n / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < half; k++) {
        const cr = tw.cos[k * stride];
        const ci = sgn * tw.sin[k * stride];
        const a = i + k;
        const b = a + half;
        const xr = re[b] * cr - im[b] * ci;
        const xi = re[b] * ci + im[b] * cr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
    }
  }
}

export interface Spectrum {
  re: Float64Array;
  im: Float64Array;
  pw: number;
  ph: number;
}

function fft2(data: Float32Array | Float64Array, w: number, h: number, pw: number, ph: number, inverse = false, src?: Spectrum): Spectrum {
  const re = src ? src.re : new Float64Array(pw * ph);
  const im = src ? src.im : new Float64Array(pw * ph);
  if (!src) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) re[y * pw + x] = data[y * w + x];
  const rr = new Float64Array(pw);
  const ri = new Float64Array(pw);
  for (let y = 0; y < ph; y++) {
    rr.set(re.subarray(y * pw, (y + 1) * pw));
    ri.set(im.subarray(y * pw, (y + 1) * pw));
    fft(rr, ri, inverse);
    re.set(rr, y * pw);
    im.set(ri, y * pw);
  }
  const cr = new Float64Array(ph);
  const ci = new Float64Array(ph);
  for (let x = 0; x < pw; x++) {
    for (let y = 0; y < ph; y++) {
      cr[y] = re[y * pw + x];
      ci[y] = im[y * pw + x];
    }
    fft(cr, ci, inverse);
    for (let y = 0; y < ph; y++) {
      re[y * pw + x] = cr[y];
      im[y * pw + x] = ci[y];
    }
  }
  return { re, im, pw, ph };
}

const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(2, n)));

/** A reference page prepared for searching: FFT and integral images at the coarse level. */
export interface Prepared {
  coarse: Gray;
  spec: Spectrum;
  sum: Float64Array;
  sum2: Float64Array;
  levels: Gray[]; // reference at full, 1/2, 1/4, 1/8
}

function integral(g: Gray): { sum: Float64Array; sum2: Float64Array } {
  const w = g.width + 1;
  const sum = new Float64Array(w * (g.height + 1));
  const sum2 = new Float64Array(w * (g.height + 1));
  for (let y = 0; y < g.height; y++) {
    let r = 0;
    let r2 = 0;
    for (let x = 0; x < g.width; x++) {
      const v = g.data[y * g.width + x];
      r += v;
      r2 += v * v;
      sum[(y + 1) * w + x + 1] = sum[y * w + x + 1] + r;
      sum2[(y + 1) * w + x + 1] = sum2[y * w + x + 1] + r2;
    }
  }
  return { sum, sum2 };
}

const COARSE_LEVEL = 3;

export function prepareReference(ref: Gray): Prepared {
  const levels = pyramid(ref, 8).slice(0, COARSE_LEVEL + 1);
  const coarse = blur(levels[levels.length - 1]);
  const pw = pow2(coarse.width);
  const ph = pow2(coarse.height);
  const spec = fft2(coarse.data, coarse.width, coarse.height, pw, ph);
  return { coarse, spec, ...integral(coarse), levels };
}

/** NCC of template `t` placed at (ox, oy) on `r` (template must lie inside). */
function nccAt(r: Gray, t: Gray, ox: number, oy: number): number {
  let st = 0;
  let sr = 0;
  let stt = 0;
  let srr = 0;
  let str = 0;
  const n = t.width * t.height;
  for (let y = 0; y < t.height; y++) {
    const rrow = (oy + y) * r.width + ox;
    const trow = y * t.width;
    for (let x = 0; x < t.width; x++) {
      const a = t.data[trow + x];
      const b = r.data[rrow + x];
      st += a;
      sr += b;
      stt += a * a;
      srr += b * b;
      str += a * b;
    }
  }
  const vt = stt - (st * st) / n;
  const vr = srr - (sr * sr) / n;
  const cov = str - (st * sr) / n;
  return cov / Math.sqrt(Math.max(vt, 1e-6) * Math.max(vr, 0.3 * vt, 1e-6));
}

export interface Candidate {
  page: number;
  dpi: number;
  x: number; // at reference level 0 pixels
  y: number;
  score: number;
}

/** Coarse search of one page over capture resolutions `dpis` (reference rendered at refDpi). */
export interface Template {
  width: number;
  height: number;
  n: number;
  vt: number;
  spec: Spectrum;
}

export function coarseSearch(
  prep: Prepared,
  capPyr: Gray[],
  refDpi: number,
  dpis: number[],
  page: number,
  cache: Map<string, Template | null>,
): Candidate[] {
  const out: Candidate[] = [];
  const { coarse, spec, sum, sum2 } = prep;
  const cw = coarse.width;
  const scaleToCoarse = 1 / 2 ** (prep.levels.length - 1);
  for (const dpi of dpis) {
    const factor = (refDpi / dpi) * scaleToCoarse;
    const cacheKey = `${dpi}|${factor}|${spec.pw}x${spec.ph}`;
    let tpl = cache.get(cacheKey);
    if (tpl === undefined) {
      tpl = null;
      const t = blur(resample(capPyr, factor));
      const n = t.width * t.height;
      if (t.width <= spec.pw && t.height <= spec.ph && t.width >= 6 && t.height >= 6) {
        let mean = 0;
        for (let i = 0; i < n; i++) mean += t.data[i];
        mean /= n;
        let vt = 0;
        const z = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          z[i] = t.data[i] - mean;
          vt += z[i] * z[i];
        }
        // featureless templates cannot be located
        if (vt >= 1e-3 * n) tpl = { width: t.width, height: t.height, n, vt, spec: fft2(z, t.width, t.height, spec.pw, spec.ph) };
      }
      cache.set(cacheKey, tpl);
    }
    if (!tpl || tpl.width > cw || tpl.height > coarse.height) continue;
    const { n, vt } = tpl;
    const t = tpl;
    const ts = tpl.spec;
    // cross-correlation = IFFT(I · conj(T))
    const re = new Float64Array(spec.re.length);
    const im = new Float64Array(spec.re.length);
    for (let i = 0; i < re.length; i++) {
      re[i] = spec.re[i] * ts.re[i] + spec.im[i] * ts.im[i];
      im[i] = spec.im[i] * ts.re[i] - spec.re[i] * ts.im[i];
    }
    const corr = fft2(re, spec.pw, spec.ph, spec.pw, spec.ph, true, { re, im, pw: spec.pw, ph: spec.ph });
    const norm = spec.pw * spec.ph;
    let best = -2;
    let bx = 0;
    let by = 0;
    const W1 = cw + 1;
    for (let y = 0; y + t.height <= coarse.height; y++) {
      for (let x = 0; x + t.width <= cw; x++) {
        const s1 = sum[(y + t.height) * W1 + x + t.width] - sum[y * W1 + x + t.width] - sum[(y + t.height) * W1 + x] + sum[y * W1 + x];
        const s2 = sum2[(y + t.height) * W1 + x + t.width] - sum2[y * W1 + x + t.width] - sum2[(y + t.height) * W1 + x] + sum2[y * W1 + x];
        const vr = s2 - (s1 * s1) / n;
        const c = corr.re[y * spec.pw + x] / norm;
        const score = c / Math.sqrt(vt * Math.max(vr, 0.3 * vt, 1e-6));
        if (score > best) {
          best = score;
          bx = x;
          by = y;
        }
      }
    }
    out.push({ page, dpi, x: bx / scaleToCoarse, y: by / scaleToCoarse, score: best });
  }
  return out;
}

interface Step {
  level: number;
  ratios: number[];
  radius: number;
}
export const REFINE_STEPS: Step[] = [
  { level: 3, ratios: [0.925, 0.94, 0.955, 0.97, 0.985, 1, 1.015, 1.03, 1.045, 1.06, 1.075], radius: 4 },
  { level: 2, ratios: [0.97, 0.9775, 0.985, 0.9925, 1, 1.0075, 1.015, 1.0225, 1.03], radius: 3 },
  { level: 1, ratios: [0.99, 0.995, 1, 1.005, 1.01], radius: 2 },
  { level: 0, ratios: [0.9975, 1, 1.0025], radius: 2 },
];

/** Local refinement at one finer reference level: position ±radius, resolution over a few ratios. */
export function refineStep(prep: Prepared, capPyr: Gray[], refDpi: number, cur: Candidate, step: Step): Candidate {
  if (step.level >= prep.levels.length) return cur;
  const coarse = step.level === prep.levels.length - 1;
  const ref = coarse ? prep.coarse : prep.levels[step.level];
  const lf = 1 / 2 ** step.level;
  let best = { ...cur, score: -2 };
  for (const ratio of step.ratios) {
    const dpi = cur.dpi * ratio;
    const t0 = resample(capPyr, (refDpi / dpi) * lf);
    const t = coarse ? blur(t0) : t0;
    // keep the capture's centre fixed when the scale changes
    const cx = cur.x + (capPyr[0].width * refDpi) / cur.dpi / 2;
    const cy = cur.y + (capPyr[0].height * refDpi) / cur.dpi / 2;
    const x0 = Math.round(cx * lf - t.width / 2);
    const y0 = Math.round(cy * lf - t.height / 2);
    for (let dy = -step.radius; dy <= step.radius; dy++) {
      for (let dx = -step.radius; dx <= step.radius; dx++) {
        const x = x0 + dx;
        const y = y0 + dy;
        if (x < 0 || y < 0 || x + t.width > ref.width || y + t.height > ref.height) continue;
        const s = nccAt(ref, t, x, y);
        if (s > best.score) best = { page: cur.page, dpi, x: x / lf, y: y / lf, score: s };
      }
    }
  }
  return best.score > -2 ? best : cur;
}

/** Best coarse candidates of one page at clearly different resolutions (non-maximum suppression over scale). */
function distinctScales(cands: Candidate[], keep: number): Candidate[] {
  const out: Candidate[] = [];
  for (const c of [...cands].sort((a, b) => b.score - a.score)) {
    if (out.every((o) => Math.abs(Math.log(o.dpi / c.dpi)) > Math.log(1.1))) out.push(c);
    if (out.length >= keep) break;
  }
  return out;
}

/**
 * Ranks the reference pages for a capture. Each result gives the page, the capture's resolution and its offset.
 * `refs` are the original pages rendered at `refDpi`; pages are compared as luma.
 */
export function locateCapture(capture: Gray, refs: Prepared[], refDpi: number, maxResults = 3): Location[] {
  const capPyr = pyramid(capture, 8);
  const results: Location[] = [];
  const dpis: number[] = [];
  for (let d = 62; d <= 340; d *= 1.07) dpis.push(d);
  const cache = new Map<string, Template | null>();
  const coarse: Candidate[] = [];
  refs.forEach((prep, page) => {
    const ref = prep.levels[0];
    const aspectCap = capture.width / capture.height;
    const aspectRef = ref.width / ref.height;
    if (Math.abs(aspectCap / aspectRef - 1) < 0.02) {
      // whole page: resolution from the width, offset 0
      const dpi = (refDpi * capture.width) / ref.width;
      const t = resample(capPyr, ref.width / 2 ** (prep.levels.length - 1) / capture.width);
      const w = Math.min(t.width, prep.coarse.width);
      const h = Math.min(t.height, prep.coarse.height);
      const tt: Gray = { width: w, height: h, data: new Float32Array(w * h) };
      for (let y = 0; y < h; y++) tt.data.set(t.data.subarray(y * t.width, y * t.width + w), y * w);
      const score = nccAt(prep.coarse, tt, 0, 0);
      results.push({ page, dpi, x: 0, y: 0, score, fullPage: true });
    }
    coarse.push(...distinctScales(coarseSearch(prep, capPyr, refDpi, dpis, page, cache), 3));
  });
  coarse.sort((a, b) => b.score - a.score);
  // refine the 6 best coarse candidates to 1/2 resolution, the 2 best of those to full resolution
  let mid = coarse.slice(0, 5).map((c) => {
    let r = c;
    for (const step of REFINE_STEPS.slice(0, 3)) r = refineStep(refs[c.page], capPyr, refDpi, r, step);
    return r;
  });
  mid = mid.sort((a, b) => b.score - a.score).slice(0, Math.max(2, maxResults));
  for (const c of mid) {
    const r = refineStep(refs[c.page], capPyr, refDpi, c, REFINE_STEPS[3]);
    results.push({ page: r.page, dpi: r.dpi, x: (r.x * r.dpi) / refDpi, y: (r.y * r.dpi) / refDpi, score: r.score, fullPage: false });
  }
  results.sort((a, b) => b.score - a.score);
  return results;
}

export function grayFromRgb(data: Uint8Array, width: number, height: number): Gray {
  const out = new Float32Array(width * height);
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = 0.299 * data[j] + 0.587 * data[j + 1] + 0.114 * data[j + 2];
  return { width, height, data: out };
}
