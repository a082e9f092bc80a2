import { haarLowBand, RgbImage, SD_MARK_STEP, strongestPosition, UVariant } from '../src/sd-watermark/sd-watermark';

/**
 * Test-only encoder of the Stable Diffusion `dwtDct` mark, written from the published algorithm so tests and the
 * benchmark can build marked images without Python: quantise the strongest LL coefficient of each 4×4 block of the
 * U plane's Haar DWT to (⌊|c|/36⌋ + 0.25 + 0.5·bit)·36, keep its sign, and spread the LL change back to the 2×2
 * pixels it came from (a change d of an LL coefficient changes each of its four U pixels by d/2).
 */
export function encodeSdMark(image: RgbImage, bits: readonly number[], variant: UVariant = { swapped: false, offset: 128 }): RgbImage {
  const { width, height, data } = image;
  const w4 = Math.floor(width / 4) * 4;
  const h4 = Math.floor(height / 4) * 4;
  const integer = variant.offset === 128;
  const round = (v: number): number => (integer ? Math.min(255, Math.max(0, Math.round(v))) : v);
  const ys = new Float32Array(w4 * h4);
  const us = new Float32Array(w4 * h4);
  const vs = new Float32Array(w4 * h4);
  for (let y = 0; y < h4; y++) {
    for (let x = 0; x < w4; x++) {
      const src = (y * width + x) * 3;
      const r = variant.swapped ? data[src + 2] : data[src];
      const g = data[src + 1];
      const b = variant.swapped ? data[src] : data[src + 2];
      const luma = 0.299 * r + 0.587 * g + 0.114 * b;
      const i = y * w4 + x;
      ys[i] = round(luma);
      us[i] = round(0.492 * (b - luma) + variant.offset);
      vs[i] = round(0.877 * (r - luma) + variant.offset);
    }
  }
  const { ll, width: llWidth, height: llHeight } = haarLowBand(us, w4, h4);
  const blocksX = Math.floor(llWidth / 4);
  const blocksY = Math.floor(llHeight / 4);
  let n = 0;
  for (let by = 0; by < blocksY; by++) {
    for (let bx = 0; bx < blocksX; bx++, n++) {
      const p = strongestPosition(ll, llWidth, bx, by);
      const lx = bx * 4 + (p & 3);
      const ly = by * 4 + (p >> 2);
      const value = ll[ly * llWidth + lx];
      const magnitude = (Math.floor(Math.abs(value) / SD_MARK_STEP) + 0.25 + 0.5 * bits[n % bits.length]) * SD_MARK_STEP;
      const delta = (value >= 0 ? magnitude : -magnitude) - value;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
        us[(2 * ly + dy) * w4 + 2 * lx + dx] += delta / 2;
      }
    }
  }
  const out = new Uint8Array(data);
  const clamp = (v: number): number => Math.min(255, Math.max(0, Math.round(v)));
  for (let y = 0; y < h4; y++) {
    for (let x = 0; x < w4; x++) {
      const i = y * w4 + x;
      const b = ys[i] + (us[i] - variant.offset) / 0.492;
      const r = ys[i] + (vs[i] - variant.offset) / 0.877;
      const g = (ys[i] - 0.299 * r - 0.114 * b) / 0.587;
      const dst = (y * width + x) * 3;
      out[dst] = clamp(variant.swapped ? b : r);
      out[dst + 1] = clamp(g);
      out[dst + 2] = clamp(variant.swapped ? r : b);
    }
  }
  return { data: out, width, height };
}
