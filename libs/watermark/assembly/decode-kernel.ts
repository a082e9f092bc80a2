// AssemblyScript source of the registered extraction's plane kernels: the hot loops over every working pixel of the
// registration (template scan, alignment scores, block matching) and of the registered decoding that used to run in
// JavaScript. Built by `node tools/wasm/build.mjs` into libs/watermark/src/decode-kernel.wasm.ts; a unit
// test rebuilds it and fails when the committed module differs from this source.
//
// Each does the same operations in the same order as the JavaScript loop it replaced (f64 arithmetic, f32 samples
// widened on load and rounded on store, no fused multiply-add in WebAssembly), so the results are bit for bit the
// same: decode-kernel.spec.ts compares each with that loop.

/** Largest polynomial degree the scratch powers hold. */
const MAX_DEGREE = 8;

/**
 * local-gain.ts's polynomial gain field: accumulates, over every `step`-th sample of every `step`-th row of the w x h planes `W` (registered original) and
 * `I` (inspected), both f32, the normal equations of I ≈ g(u, v) · lut(W): `b[r] += I · phi[r]` and the upper triangle
 * `A[r * m + c] += phi[r] · phi[c]` (c ≥ r), phi[r] = u^ti[r] · v^tj[r] · lut(W), with u = (x − cx) · sc and
 * v = (y − cy) · sc. Samples where W is NaN or I ≥ saturated are left out. `lut` holds `bins` f64 values (tone.ts's
 * lutAt); `ti`, `tj` (i32) the powers of the `m` terms; `scratch` room for 2 · (MAX_DEGREE + 1) + m f64.
 */
export function normalEquations(W: usize, I: usize, w: i32, h: i32, step: i32, lut: usize, bins: i32, cx: f64, cy: f64, sc: f64, degree: i32, ti: usize, tj: usize, m: i32, A: usize, b: usize, saturated: f64, scratch: usize): void {
  const up = scratch;
  const vp = scratch + ((MAX_DEGREE + 1) << 3);
  const phi = vp + ((MAX_DEGREE + 1) << 3);
  const fb = <f64>bins;
  for (let y = 0; y < h; y += step) {
    const v = (<f64>y - cy) * sc;
    store<f64>(vp, 1);
    for (let j = 1; j <= degree; j++) store<f64>(vp + (<usize>j << 3), load<f64>(vp + (<usize>(j - 1) << 3)) * v);
    for (let x = 0; x < w; x += step) {
      const k = <usize>y * <usize>w + <usize>x;
      const wk = <f64>load<f32>(W + (k << 2));
      const ik = <f64>load<f32>(I + (k << 2));
      if (isNaN(wk) || ik >= saturated) continue;
      // tone.ts's lutAt
      const t = (wk / 256) * fb - 0.5;
      const b0 = max<f64>(0, min<f64>(fb - 2, floor(t)));
      const f = max<f64>(0, min<f64>(1, t - b0));
      const l0 = load<f64>(lut + (<usize>b0 << 3));
      const p = l0 + (load<f64>(lut + ((<usize>b0 + 1) << 3)) - l0) * f;
      const u = (<f64>x - cx) * sc;
      store<f64>(up, 1);
      for (let i = 1; i <= degree; i++) store<f64>(up + (<usize>i << 3), load<f64>(up + (<usize>(i - 1) << 3)) * u);
      for (let r = 0; r < m; r++) {
        const pr = load<f64>(up + (<usize>load<i32>(ti + (<usize>r << 2)) << 3)) * load<f64>(vp + (<usize>load<i32>(tj + (<usize>r << 2)) << 3)) * p;
        store<f64>(phi + (<usize>r << 3), pr);
      }
      for (let r = 0; r < m; r++) {
        const pr = load<f64>(phi + (<usize>r << 3));
        const br = b + (<usize>r << 3);
        store<f64>(br, load<f64>(br) + ik * pr);
        const row = A + (<usize>(r * m) << 3);
        for (let c = r; c < m; c++) {
          const a = row + (<usize>c << 3);
          store<f64>(a, load<f64>(a) + pr * load<f64>(phi + (<usize>c << 3)));
        }
      }
    }
  }
}

/** Radius of fir.ts's filter (5 x 5 taps). */
const FIR_R = 2;
const FIR_TAPS = (2 * FIR_R + 1) * (2 * FIR_R + 1);

/**
 * fir.ts's fitFir: the normal equations of a 5 x 5 FIR filter plus bias mapping `W` onto `I` (w x h, f32), over every
 * `step`-th pixel of every `step`-th row whose 5 x 5 neighbourhood of W has no NaN: b[i] += row[i] · t and the upper
 * triangle A[i · n + k] += row[i] · row[k] (k ≥ i; a zero row[i] adds nothing), with row the neighbourhood minus 128
 * and a 1, and t = I − 128. `row` is scratch for n = 26 f64. Returns the number of samples.
 */
export function firNormalEquations(W: usize, I: usize, w: i32, h: i32, step: i32, A: usize, b: usize, row: usize): i32 {
  const n = FIR_TAPS + 1;
  let cnt = 0;
  for (let y = FIR_R; y < h - FIR_R; y += step) {
    for (let x = FIR_R; x < w - FIR_R; x += step) {
      let ok = true;
      let j = 0;
      for (let dy = -FIR_R; dy <= FIR_R && ok; dy++) {
        const base = (y + dy) * w + x;
        for (let dx = -FIR_R; dx <= FIR_R; dx++) {
          const v = <f64>load<f32>(W + (<usize>(base + dx) << 2));
          if (isNaN(v)) {
            ok = false;
            break;
          }
          store<f64>(row + (<usize>j << 3), v - 128);
          j++;
        }
      }
      if (!ok) continue;
      store<f64>(row + (<usize>(n - 1) << 3), 1);
      const t = <f64>load<f32>(I + (<usize>(y * w + x) << 2)) - 128;
      for (let i = 0; i < n; i++) {
        const ri = load<f64>(row + (<usize>i << 3));
        if (ri == 0) continue;
        const bi = b + (<usize>i << 3);
        store<f64>(bi, load<f64>(bi) + ri * t);
        const off = A + (<usize>(i * n) << 3);
        for (let k = i; k < n; k++) {
          const a = off + (<usize>k << 3);
          store<f64>(a, load<f64>(a) + ri * load<f64>(row + (<usize>k << 3)));
        }
      }
      cnt++;
    }
  }
  return cnt;
}

/**
 * fir.ts's applyFir: out = Σ coef[t] · W[c + offs[t]] (summed from 0 in tap order) − off · sumK + bias + off on every
 * pixel at least 2 from the border, NaN elsewhere; W and out f32 (w x h), coef 25 f64, offs 25 i32.
 */
export function applyFir(W: usize, w: i32, h: i32, coef: usize, offs: usize, out: usize, off: f64, sumK: f64, bias: f64): void {
  const n = w * h;
  for (let c = 0; c < n; c++) store<f32>(out + (<usize>c << 2), NaN);
  for (let y = FIR_R; y < h - FIR_R; y++) {
    for (let x = FIR_R; x < w - FIR_R; x++) {
      const c = y * w + x;
      let acc: f64 = 0;
      for (let t = 0; t < FIR_TAPS; t++) {
        acc = acc + load<f64>(coef + (<usize>t << 3)) * <f64>load<f32>(W + (<usize>(c + load<i32>(offs + (<usize>t << 2))) << 2));
      }
      store<f32>(out + (<usize>c << 2), <f32>(acc - off * sumK + bias + off));
    }
  }
}

/**
 * cell-decode.ts's accumulate: the bilinear projections of `count` values r (f32; NaN skipped) at normalised
 * positions (u, v) (f32) on an nx x ny grid, added to the f32 cell sums p (w·r), w1 (w), w2 (w²) and r2 (w·r²).
 */
export function accumulateCells(nx: i32, ny: i32, u: usize, v: usize, r: usize, count: i32, p: usize, w1: usize, w2: usize, r2: usize): void {
  const fnx = <f64>nx;
  const fny = <f64>ny;
  for (let k = 0; k < count; k++) {
    const val = <f64>load<f32>(r + (<usize>k << 2));
    if (val != val) continue;
    // cell-decode.ts's tapOf
    let fx = <f64>load<f32>(u + (<usize>k << 2)) * fnx - 0.5;
    let fy = <f64>load<f32>(v + (<usize>k << 2)) * fny - 0.5;
    // a NaN position gives JavaScript a NaN cell index, whose writes are lost: none here either
    if (isNaN(fx) || isNaN(fy)) continue;
    let ix = floor(fx);
    let iy = floor(fy);
    if (ix < 0) {
      ix = 0;
      fx = 0;
    } else if (ix >= fnx - 1) {
      ix = fnx - 2;
      fx = 1;
    } else fx -= ix;
    if (iy < 0) {
      iy = 0;
      fy = 0;
    } else if (iy >= fny - 1) {
      iy = fny - 2;
      fy = 1;
    } else fy -= iy;
    const c = <usize>(<i32>(iy * fnx + ix));
    const vv = val * val;
    const a = (1 - fx) * (1 - fy);
    const b = fx * (1 - fy);
    const cc = (1 - fx) * fy;
    const d = fx * fy;
    addCell(p, w1, w2, r2, c, a, val, vv);
    addCell(p, w1, w2, r2, c + 1, b, val, vv);
    addCell(p, w1, w2, r2, c + <usize>nx, cc, val, vv);
    addCell(p, w1, w2, r2, c + <usize>nx + 1, d, val, vv);
  }
}

// @ts-ignore: decorator
@inline
function addCell(p: usize, w1: usize, w2: usize, r2: usize, c: usize, wt: f64, val: f64, vv: f64): void {
  const o = c << 2;
  store<f32>(p + o, <f32>(<f64>load<f32>(p + o) + wt * val));
  store<f32>(w1 + o, <f32>(<f64>load<f32>(w1 + o) + wt));
  store<f32>(w2 + o, <f32>(<f64>load<f32>(w2 + o) + wt * wt));
  store<f32>(r2 + o, <f32>(<f64>load<f32>(r2 + o) + wt * vv));
}

// image.ts's applyH, term by term (H: 9 f64, row-major): x' = homX(H, x, y, z), y' = homY(...), z = homZ(H, x, y).
// @ts-ignore: decorator
@inline
function homZ(H: usize, x: f64, y: f64): f64 {
  return load<f64>(H, 48) * x + load<f64>(H, 56) * y + load<f64>(H, 64);
}

// @ts-ignore: decorator
@inline
function homX(H: usize, x: f64, y: f64, z: f64): f64 {
  return (load<f64>(H) * x + load<f64>(H, 8) * y + load<f64>(H, 16)) / z;
}

// @ts-ignore: decorator
@inline
function homY(H: usize, x: f64, y: f64, z: f64): f64 {
  return (load<f64>(H, 24) * x + load<f64>(H, 32) * y + load<f64>(H, 40)) / z;
}

/**
 * registered-decode.ts's warp of the original onto the inspected pixels: for every inspected working pixel (x, y)
 * (iw x ih), (a, b) = H(x, y) (image.ts's applyH; H is 9 f64, row-major), the normalised original position
 * qx = (a + 0.5) / ow, qy = (b + 0.5) / oh, and W = image.ts's sampleCubicOrNaN of `src` (sw x sh, f32; sw, sh ≥ 2) at
 * ((a + 0.5) · rx − 0.5, (b + 0.5) · ry − 0.5). qx, qy, W: f32 planes of iw x ih.
 */
export function warpCubic(src: usize, sw: i32, sh: i32, H: usize, ow: f64, oh: f64, rx: f64, ry: f64, iw: i32, ih: i32, qx: usize, qy: usize, W: usize): void {
  for (let y = 0; y < ih; y++) {
    const fy = <f64>y;
    for (let x = 0; x < iw; x++) {
      const fx = <f64>x;
      const k = <usize>(y * iw + x) << 2;
      const z = homZ(H, fx, fy);
      const a = homX(H, fx, fy, z);
      const b = homY(H, fx, fy, z);
      store<f32>(qx + k, <f32>((a + 0.5) / ow));
      store<f32>(qy + k, <f32>((b + 0.5) / oh));
      store<f32>(W + k, <f32>sampleCubicOrNaN(src, sw, sh, (a + 0.5) * rx - 0.5, (b + 0.5) * ry - 0.5));
    }
  }
}

// @ts-ignore: decorator
@inline
function px(d: usize, i: i32): f64 {
  return <f64>load<f32>(d + (<usize>i << 2));
}

/** image.ts's sampleOrNaN: bilinear at index coordinates (x, y) of d (w x h, f32), NaN outside. */
function sampleOrNaN(d: usize, w: i32, h: i32, x: f64, y: f64): f64 {
  if (!(x >= 0 && y >= 0 && x <= <f64>(w - 1) && y <= <f64>(h - 1))) return NaN;
  return bilinear(d, w, h, x, y);
}

/**
 * The bilinear sample at (x, y) within [0, w − 1] x [0, h − 1] (image.ts's `sample` and `sampleOrNaN` after their
 * tests): the pixel at the top-left of the last cell for the far edges, d[0] for a plane one pixel wide or high.
 */
// @ts-ignore: decorator
@inline
function bilinear(d: usize, w: i32, h: i32, x: f64, y: f64): f64 {
  const x0 = min<f64>(<f64>(w - 2), floor(x));
  const y0 = min<f64>(<f64>(h - 2), floor(y));
  if (x0 < 0 || y0 < 0) return px(d, 0);
  const fx = x - x0;
  const fy = y - y0;
  const i = <i32>y0 * w + <i32>x0;
  const d0 = px(d, i);
  const d1 = px(d, i + w);
  const top = d0 + (px(d, i + 1) - d0) * fx;
  const bot = d1 + (px(d, i + w + 1) - d1) * fx;
  return top + (bot - top) * fy;
}

/** image.ts's sampleCubicOrNaN: Catmull-Rom at (x, y), bilinear within a pixel of the border, NaN outside. */
// @ts-ignore: decorator
@inline
function sampleCubicOrNaN(d: usize, w: i32, h: i32, x: f64, y: f64): f64 {
  if (!(x >= 1 && y >= 1 && x < <f64>(w - 2) && y < <f64>(h - 2))) return sampleOrNaN(d, w, h, x, y);
  const x0 = floor(x);
  const y0 = floor(y);
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
  let i = (<i32>y0 - 1) * w + <i32>x0 - 1;
  const r0 = wx0 * px(d, i) + wx1 * px(d, i + 1) + wx2 * px(d, i + 2) + wx3 * px(d, i + 3);
  i += w;
  const r1 = wx0 * px(d, i) + wx1 * px(d, i + 1) + wx2 * px(d, i + 2) + wx3 * px(d, i + 3);
  i += w;
  const r2 = wx0 * px(d, i) + wx1 * px(d, i + 1) + wx2 * px(d, i + 2) + wx3 * px(d, i + 3);
  i += w;
  const r3 = wx0 * px(d, i) + wx1 * px(d, i + 1) + wx2 * px(d, i + 2) + wx3 * px(d, i + 3);
  return wy0 * r0 + wy1 * r1 + wy2 * r2 + wy3 * r3;
}

/**
 * The template sums at four neighbouring placements: for taps k < n (offsets `off`, i32, in floats from `base`;
 * weights `t`, f64), s1 = Σ t·o, s2 = Σ o, s3 = Σ o² with o read at base + off[k] + j for j = 0…3 (4 floats at
 * once, two f64x2 lanes each), every lane summing in tap order. Written to `out` as s1[0…3], s2[0…3], s3[0…3].
 */
// @ts-ignore: decorator
@inline
function sums4(base: usize, off: usize, t: usize, n: i32, out: usize): void {
  let s1a = f64x2.splat(0);
  let s1b = f64x2.splat(0);
  let s2a = f64x2.splat(0);
  let s2b = f64x2.splat(0);
  let s3a = f64x2.splat(0);
  let s3b = f64x2.splat(0);
  for (let k = 0; k < n; k++) {
    const o4 = v128.load(base + (<usize>load<i32>(off + (<usize>k << 2)) << 2));
    const lo = f64x2.promote_low_f32x4(o4);
    const hi = f64x2.promote_low_f32x4(v128.shuffle<f32>(o4, o4, 2, 3, 0, 1));
    const tk = f64x2.splat(load<f64>(t + (<usize>k << 3)));
    s1a = f64x2.add(s1a, f64x2.mul(tk, lo));
    s1b = f64x2.add(s1b, f64x2.mul(tk, hi));
    s2a = f64x2.add(s2a, lo);
    s2b = f64x2.add(s2b, hi);
    s3a = f64x2.add(s3a, f64x2.mul(lo, lo));
    s3b = f64x2.add(s3b, f64x2.mul(hi, hi));
  }
  v128.store(out, s1a);
  v128.store(out, s1b, 16);
  v128.store(out, s2a, 32);
  v128.store(out, s2b, 48);
  v128.store(out, s3a, 64);
  v128.store(out, s3b, 80);
}

/**
 * register.ts's coarseSearch scan: for every placement (x, y) of a tw x th template over the original `O` (ow x oh,
 * f32, read up to 3 floats past its end), the sums over the n template samples (offsets `off`, i32, and zero-mean
 * unit-norm values `t`, f64; sums4, four placements at once) are scored s1 / √(s3 − s2²/n), placements where
 * s3 − s2²/n ≤ 1e-6 skipped; the first best in row order wins. Writes the best score (f64, −2 when none) at `out`, its
 * x and y (i32) at out + 8, out + 12; `scratch` holds 12 f64.
 */
export function nccSearch(O: usize, ow: i32, oh: i32, tw: i32, th: i32, off: usize, t: usize, n: i32, out: usize, scratch: usize): void {
  const fn = <f64>n;
  let best: f64 = -2;
  let bx = 0;
  let by = 0;
  for (let y = 0; y + th <= oh; y++) {
    for (let x = 0; x + tw <= ow; x += 4) {
      sums4(O + (<usize>(y * ow + x) << 2), off, t, n, scratch);
      for (let j = 0; j < 4 && x + j + tw <= ow; j++) {
        const s1 = load<f64>(scratch + (<usize>j << 3));
        const s2 = load<f64>(scratch + (<usize>(4 + j) << 3));
        const s3 = load<f64>(scratch + (<usize>(8 + j) << 3));
        const den = s3 - (s2 * s2) / fn;
        if (den <= 1e-6) continue;
        const c = s1 / sqrt(den);
        if (c > best) {
          best = c;
          bx = x + j;
          by = y;
        }
      }
    }
  }
  store<f64>(out, best);
  store<i32>(out, bx, 8);
  store<i32>(out, by, 12);
}

/**
 * register.ts's aligned samples: for every `step`-th inspected pixel (x, y) of every `step`-th row (I: iw x ih, f32)
 * that H (9 f64) maps inside the original O (ow x oh, f32), the pair (a, b) = (I there, image.ts's `sample` of O at
 * H(x, y)) is added, in that order, to NCC sums (n, Σa, Σb, Σa², Σb², Σab) at `out`: with `tiles` = 0, to the
 * sums at out and, where the u8 mask `fill` is 0, to those at out + 48; otherwise to the sums of its tile of a
 * tiles x tiles grid (6 f64 each, row-major).
 */
export function alignedSums(O: usize, ow: i32, oh: i32, I: usize, iw: i32, ih: i32, H: usize, step: i32, fill: usize, tiles: i32, out: usize): void {
  const wm = <f64>(ow - 1);
  const hm = <f64>(oh - 1);
  const ft = <f64>tiles;
  const fw = <f64>iw;
  const fh = <f64>ih;
  for (let y = 0; y < ih; y += step) {
    const fy = <f64>y;
    for (let x = 0; x < iw; x += step) {
      const fx = <f64>x;
      const z = homZ(H, fx, fy);
      const qx = homX(H, fx, fy, z);
      const qy = homY(H, fx, fy, z);
      if (qx < 0 || qy < 0 || qx > wm || qy > hm) continue;
      const k = y * iw + x;
      const a = <f64>load<f32>(I + (<usize>k << 2));
      const b = sampleClamped(O, ow, oh, qx, qy);
      if (tiles == 0) {
        addPair(out, a, b);
        if (load<u8>(fill + <usize>k) == 0) addPair(out + 48, a, b);
      } else {
        const tx = min<f64>(ft - 1, floor((fx * ft) / fw));
        const ty = min<f64>(ft - 1, floor((fy * ft) / fh));
        addPair(out + ((<usize>(<i32>ty * tiles + <i32>tx) * 6) << 3), a, b);
      }
    }
  }
}

// @ts-ignore: decorator
@inline
function addPair(s: usize, a: f64, b: f64): void {
  store<f64>(s, load<f64>(s) + 1);
  store<f64>(s, load<f64>(s, 8) + a, 8);
  store<f64>(s, load<f64>(s, 16) + b, 16);
  store<f64>(s, load<f64>(s, 24) + a * a, 24);
  store<f64>(s, load<f64>(s, 32) + b * b, 32);
  store<f64>(s, load<f64>(s, 40) + a * b, 40);
}

/** image.ts's `sample`: bilinear with edge clamping (NaN at a NaN position, as there). */
function sampleClamped(d: usize, w: i32, h: i32, x: f64, y: f64): f64 {
  if (isNaN(x) || isNaN(y)) return NaN;
  const wm = <f64>(w - 1);
  const hm = <f64>(h - 1);
  return bilinear(d, w, h, x < 0 ? 0 : x > wm ? wm : x, y < 0 ? 0 : y > hm ? hm : y);
}

/**
 * register.ts's block matching scores: a patch's `count` valid taps (offsets `off` into a window of the original
 * ww floats wide, i32, in the loop's row-then-column order; values `patch`, f64, zero mean, Σ patch² = ss; n = their
 * number) scored against every shift (dx, dy) in [0, 2S]² of the window (read up to 3 floats past its end) by sums4,
 * s1 / √max(1e-9, (s3 − s2²/n)·ss), written row-major into `scores` (f64, (2S+1)²). `scratch` holds 12 f64.
 */
export function blockScores(win: usize, ww: i32, S: i32, off: usize, patch: usize, count: i32, n: f64, ss: f64, scores: usize, scratch: usize): void {
  const side = 2 * S + 1;
  for (let dy = 0; dy < side; dy++) {
    for (let dx = 0; dx < side; dx += 4) {
      sums4(win + (<usize>(dy * ww + dx) << 2), off, patch, count, scratch);
      for (let j = 0; j < 4 && dx + j < side; j++) {
        const s1 = load<f64>(scratch + (<usize>j << 3));
        const s2 = load<f64>(scratch + (<usize>(4 + j) << 3));
        const s3 = load<f64>(scratch + (<usize>(8 + j) << 3));
        store<f64>(scores + (<usize>(dy * side + dx + j) << 3), s1 / sqrt(max<f64>(1e-9, (s3 - (s2 * s2) / n) * ss)));
      }
    }
  }
}

/**
 * soft-decode.ts's joint estimate: one layer's mark synthesised from per-coded-bit values `sv` (f64) and added to
 * the f32 plane m at each of its n pixels with a cell (cc ≥ 0; i32): the bilinear blend, weights fx, fy (f32), of
 * cf[c] · sv[bit[c]] over the cell's four corners on an nx-wide grid (cf f32, bit u16).
 */
export function jointSynth(n: i32, nx: i32, cc: usize, fx: usize, fy: usize, cf: usize, bit: usize, sv: usize, m: usize): void {
  const unx = <usize>nx;
  for (let k = 0; k < n; k++) {
    const c = load<i32>(cc + (<usize>k << 2));
    if (c < 0) continue;
    const c0 = <usize>c;
    const a = <f64>load<f32>(cf + (c0 << 2)) * load<f64>(sv + (<usize>load<u16>(bit + (c0 << 1)) << 3));
    const b = <f64>load<f32>(cf + ((c0 + 1) << 2)) * load<f64>(sv + (<usize>load<u16>(bit + ((c0 + 1) << 1)) << 3));
    const d = <f64>load<f32>(cf + ((c0 + unx) << 2)) * load<f64>(sv + (<usize>load<u16>(bit + ((c0 + unx) << 1)) << 3));
    const e = <f64>load<f32>(cf + ((c0 + unx + 1) << 2)) * load<f64>(sv + (<usize>load<u16>(bit + ((c0 + unx + 1) << 1)) << 3));
    const x = <f64>load<f32>(fx + (<usize>k << 2));
    const y = <f64>load<f32>(fy + (<usize>k << 2));
    const mk = m + (<usize>k << 2);
    store<f32>(mk, <f32>(<f64>load<f32>(mk) + ((a + (b - a) * x) * (1 - y) + (d + (e - d) * x) * y)));
  }
}

/**
 * jointSynth's adjoint: each pixel's value of the f32 plane `img` (0 skipped) spread over its cell's four corners,
 * cf[c] · value · bilinear weight, added to out[bit[c]] (f64, one per coded bit).
 */
export function jointProject(n: i32, nx: i32, cc: usize, fx: usize, fy: usize, cf: usize, bit: usize, img: usize, out: usize): void {
  const unx = <usize>nx;
  for (let k = 0; k < n; k++) {
    const c = load<i32>(cc + (<usize>k << 2));
    if (c < 0) continue;
    const val = <f64>load<f32>(img + (<usize>k << 2));
    if (val == 0) continue;
    const c0 = <usize>c;
    const x = <f64>load<f32>(fx + (<usize>k << 2));
    const y = <f64>load<f32>(fy + (<usize>k << 2));
    let o = out + (<usize>load<u16>(bit + (c0 << 1)) << 3);
    store<f64>(o, load<f64>(o) + <f64>load<f32>(cf + (c0 << 2)) * val * (1 - x) * (1 - y));
    o = out + (<usize>load<u16>(bit + ((c0 + 1) << 1)) << 3);
    store<f64>(o, load<f64>(o) + <f64>load<f32>(cf + ((c0 + 1) << 2)) * val * x * (1 - y));
    o = out + (<usize>load<u16>(bit + ((c0 + unx) << 1)) << 3);
    store<f64>(o, load<f64>(o) + <f64>load<f32>(cf + ((c0 + unx) << 2)) * val * (1 - x) * y);
    o = out + (<usize>load<u16>(bit + ((c0 + unx + 1) << 1)) << 3);
    store<f64>(o, load<f64>(o) + <f64>load<f32>(cf + ((c0 + unx + 1) << 2)) * val * x * y);
  }
}

/**
 * The joint estimate's 5 x 5 filter (soft-decode.ts; fir.ts's `convolve` until the eighteenth session):
 * out = Σ coef[t] · x[c + offs[t]] (summed from 0 in tap order; offs i32, negated for the adjoint) on every pixel at
 * least 2 from the border of the w x h f32 planes, 0 on it. Four pixels of a row at once (two f64x2 lanes each, every
 * lane summing in tap order; reads up to 3 floats past a row's interior).
 */
export function firConvolve(x: usize, w: i32, h: i32, coef: usize, offs: usize, out: usize): void {
  memory.fill(out, 0, <usize>(w * h) << 2);
  const end = w - FIR_R;
  for (let y = FIR_R; y < h - FIR_R; y++) {
    for (let xx = FIR_R; xx < end; xx += 4) {
      const c = y * w + xx;
      let a = f64x2.splat(0);
      let b = f64x2.splat(0);
      for (let t = 0; t < FIR_TAPS; t++) {
        const v4 = v128.load(x + (<usize>(c + load<i32>(offs + (<usize>t << 2))) << 2));
        const k = f64x2.splat(load<f64>(coef + (<usize>t << 3)));
        a = f64x2.add(a, f64x2.mul(k, f64x2.promote_low_f32x4(v4)));
        b = f64x2.add(b, f64x2.mul(k, f64x2.promote_low_f32x4(v128.shuffle<f32>(v4, v4, 2, 3, 0, 1))));
      }
      const o = out + (<usize>c << 2);
      store<f32>(o, <f32>f64x2.extract_lane(a, 0));
      if (xx + 1 < end) store<f32>(o, <f32>f64x2.extract_lane(a, 1), 4);
      if (xx + 2 < end) store<f32>(o, <f32>f64x2.extract_lane(b, 0), 8);
      if (xx + 3 < end) store<f32>(o, <f32>f64x2.extract_lane(b, 1), 12);
    }
  }
}

/** soft-decode.ts's weighting: m[k] = m[k] · W[k] over n f32 values. */
export function weighPlane(m: usize, W: usize, n: i32): void {
  for (let k = 0; k < n; k++) {
    const mk = m + (<usize>k << 2);
    store<f32>(mk, <f32>(<f64>load<f32>(mk) * <f64>load<f32>(W + (<usize>k << 2))));
  }
}
