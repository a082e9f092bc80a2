// AssemblyScript source of the pixel kernel that adds the mark to 8-bit rows (WebAssembly SIMD).
// Built by `node tools/wasm/build.mjs` into libs/watermark/src/mark-kernel.wasm.ts; a unit test rebuilds it
// and fails when the committed module differs from this source.
//
// The mark of a row is the sum of two layers; each layer is a blend of two x-interpolated cell-row profiles
// (f32, one value per pixel): delta = pa * (1 - f) + pb * f. The delta is rounded to the nearest integer
// (ties to even) and added to every colour sample with saturation to 0..255; alpha samples are left as they are.

/** Pixel-to-sample spreads for 16 pixels: index >= 16 gives a zero delta (alpha samples). */
const RGB_0 = i8x16(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5);
const RGB_1 = i8x16(5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10);
const RGB_2 = i8x16(10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15);
const RGBA_0 = i8x16(0, 0, 0, -1, 1, 1, 1, -1, 2, 2, 2, -1, 3, 3, 3, -1);
const RGBA_1 = i8x16(4, 4, 4, -1, 5, 5, 5, -1, 6, 6, 6, -1, 7, 7, 7, -1);
const RGBA_2 = i8x16(8, 8, 8, -1, 9, 9, 9, -1, 10, 10, 10, -1, 11, 11, 11, -1);
const RGBA_3 = i8x16(12, 12, 12, -1, 13, 13, 13, -1, 14, 14, 14, -1, 15, 15, 15, -1);
const GA_0 = i8x16(0, -1, 1, -1, 2, -1, 3, -1, 4, -1, 5, -1, 6, -1, 7, -1);
const GA_1 = i8x16(8, -1, 9, -1, 10, -1, 11, -1, 12, -1, 13, -1, 14, -1, 15, -1);

/** Four pixels of the mark (f32). */
// @ts-ignore: decorator
@inline
function blend4(p0a: usize, p0b: usize, g0a: v128, g0b: v128, p1a: usize, p1b: usize, g1a: v128, g1b: v128, o: usize): v128 {
  const l0 = f32x4.add(f32x4.mul(v128.load(p0a + o), g0a), f32x4.mul(v128.load(p0b + o), g0b));
  const l1 = f32x4.add(f32x4.mul(v128.load(p1a + o), g1a), f32x4.mul(v128.load(p1b + o), g1b));
  return i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.add(l0, l1)));
}

/** Adds a signed delta to 16 unsigned samples with saturation (through the signed domain). */
// @ts-ignore: decorator
@inline
function addSat(p: usize, d: v128): void {
  const bias = i8x16.splat(-128);
  v128.store(p, v128.xor(i8x16.add_sat_s(v128.xor(v128.load(p), bias), d), bias));
}

/** Marks one row of `w` pixels with `ch` interleaved 8-bit samples (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA). */
export function markRow(px: usize, w: i32, ch: i32, p0a: usize, p0b: usize, f0: f32, p1a: usize, p1b: usize, f1: f32): void {
  const g0a = f32x4.splat(1 - f0);
  const g0b = f32x4.splat(f0);
  const g1a = f32x4.splat(1 - f1);
  const g1b = f32x4.splat(f1);
  let x = 0;
  for (; x + 16 <= w; x += 16) {
    const o = (<usize>x) << 2;
    const i0 = blend4(p0a, p0b, g0a, g0b, p1a, p1b, g1a, g1b, o);
    const i1 = blend4(p0a, p0b, g0a, g0b, p1a, p1b, g1a, g1b, o + 16);
    const i2 = blend4(p0a, p0b, g0a, g0b, p1a, p1b, g1a, g1b, o + 32);
    const i3 = blend4(p0a, p0b, g0a, g0b, p1a, p1b, g1a, g1b, o + 48);
    const d = i8x16.narrow_i16x8_s(i16x8.narrow_i32x4_s(i0, i1), i16x8.narrow_i32x4_s(i2, i3));
    const p = px + <usize>x * <usize>ch;
    if (ch == 3) {
      addSat(p, i8x16.swizzle(d, RGB_0));
      addSat(p + 16, i8x16.swizzle(d, RGB_1));
      addSat(p + 32, i8x16.swizzle(d, RGB_2));
    } else if (ch == 4) {
      addSat(p, i8x16.swizzle(d, RGBA_0));
      addSat(p + 16, i8x16.swizzle(d, RGBA_1));
      addSat(p + 32, i8x16.swizzle(d, RGBA_2));
      addSat(p + 48, i8x16.swizzle(d, RGBA_3));
    } else if (ch == 2) {
      addSat(p, i8x16.swizzle(d, GA_0));
      addSat(p + 16, i8x16.swizzle(d, GA_1));
    } else {
      addSat(p, d);
    }
  }
  const colours = ch >= 3 ? 3 : 1;
  for (; x < w; x++) {
    const o = (<usize>x) << 2;
    const l0 = load<f32>(p0a + o) * (1 - f0) + load<f32>(p0b + o) * f0;
    const l1 = load<f32>(p1a + o) * (1 - f1) + load<f32>(p1b + o) * f1;
    let d = <i32>nearest<f32>(l0 + l1);
    d = d < -128 ? -128 : d > 127 ? 127 : d;
    const p = px + <usize>x * <usize>ch;
    for (let c = 0; c < colours; c++) {
      const v = <i32>load<u8>(p + c) + d;
      store<u8>(p + c, v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

/**
 * Per-cell texture statistics of a raster held in this memory (embed.ts's rasterActivity, the same sums): over
 * every `step`-th pixel of every `step`-th row (but the last row and column), the luma v = R + 2G + B (or the gray
 * sample) and a = |v(x+1) - v| + |v(y+1) - v| are added to their cell's `sum` (a) and `lum` (v) (f64, exact for
 * these integers), the cell's `cnt` counts samples and `df` the dark, flat ones (v < darkV and a < flatA).
 * `cxOf` (i32 per pixel column) and `cyOf` (i32 per sampled row) give the cell column and the cell row's first cell.
 */
export function activity(px: usize, w: i32, h: i32, ch: i32, gray: bool, step: i32, cxOf: usize, cyOf: usize, sum: usize, lum: usize, cnt: usize, df: usize, darkV: f64, flatA: f64): void {
  const stride = <usize>w * <usize>ch;
  const advance = <usize>step * <usize>ch;
  const right = <usize>ch;
  for (let y = 0, k = 0; y + 1 < h; y += step, k++) {
    const cellRow = load<i32>(cyOf + (<usize>k << 2));
    let i = px + <usize>y * stride;
    for (let x = 0; x + 1 < w; x += step, i += advance) {
      const j = i + stride;
      let v: i32;
      let r: i32;
      let d: i32;
      if (gray) {
        v = <i32>load<u8>(i);
        r = <i32>load<u8>(i + right);
        d = <i32>load<u8>(j);
      } else {
        v = <i32>load<u8>(i) + 2 * <i32>load<u8>(i + 1) + <i32>load<u8>(i + 2);
        r = <i32>load<u8>(i + right) + 2 * <i32>load<u8>(i + right + 1) + <i32>load<u8>(i + right + 2);
        d = <i32>load<u8>(j) + 2 * <i32>load<u8>(j + 1) + <i32>load<u8>(j + 2);
      }
      const a = abs<i32>(r - v) + abs<i32>(d - v);
      const c = <usize>(cellRow + load<i32>(cxOf + (<usize>x << 2)));
      store<f64>(sum + (c << 3), load<f64>(sum + (c << 3)) + <f64>a);
      store<f64>(lum + (c << 3), load<f64>(lum + (c << 3)) + <f64>v);
      store<i32>(cnt + (c << 2), load<i32>(cnt + (c << 2)) + 1);
      if (<f64>v < darkV && <f64>a < flatA) store<i32>(df + (c << 2), load<i32>(df + (c << 2)) + 1);
    }
  }
}
