/** Masks of the inspected pixels that do not show the registered original (captions, stickers, a filled canvas). */
import { canvasFillRegion } from './image';
import { lutAt } from './tone';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

const FOREIGN_BLOCK = 8;
/** A block is foreign when its mean absolute difference exceeds this many times the median block's, and FOREIGN_FLOOR levels. */
const FOREIGN_FACTOR = 4;
const FOREIGN_FLOOR = 12;

/**
 * Sets to NaN in W the blocks of the inspected image whose content is not the registered original's (mean absolute
 * difference to the photometrically mapped original far above the median block's: a caption, a sticker, a fill far
 * from the content under it), with their neighbours (the anti-aliased seam). Returns the number of blocks left out.
 */
export function maskForeign(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): number {
  const B = FOREIGN_BLOCK;
  const bx = math.ceil(w / B);
  const by = math.ceil(h / B);
  const nb = bx * by;
  const cnt = new Float64Array(nb);
  const sumE = new Float64Array(nb);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      if (num.isNaN(W[k])) continue;
      const b = math.floor(y / B) * bx + math.floor(x / B);
      sumE[b] += math.abs(I[k] - lutAt(lut, W[k]));
      cnt[b] += 1;
    }
  }
  const means: number[] = [];
  for (let b = 0; b < nb; b++) if (cnt[b] >= (B * B) / 4) means.push(sumE[b] / cnt[b]);
  if (means.length < 16) return 0;
  means.sort((a, b) => a - b);
  const limit = math.max(FOREIGN_FLOOR, FOREIGN_FACTOR * means[means.length >> 1]);
  const foreign = new Uint8Array(nb);
  let found = 0;
  for (let b = 0; b < nb; b++) {
    if (cnt[b] >= (B * B) / 4 && sumE[b] / cnt[b] > limit) {
      foreign[b] = 1;
      found++;
    }
  }
  if (found === 0) return 0;
  for (let y = 0; y < h; y++) {
    const yb = math.floor(y / B);
    for (let x = 0; x < w; x++) {
      const xb = math.floor(x / B);
      let hit = false;
      for (let dy = -1; dy <= 1 && !hit; dy++) {
        for (let dx = -1; dx <= 1 && !hit; dx++) {
          const yy = yb + dy;
          const xx = xb + dx;
          if (yy >= 0 && yy < by && xx >= 0 && xx < bx && foreign[yy * bx + xx]) hit = true;
        }
      }
      if (hit) W[y * w + x] = num.NaN;
    }
  }
  return found;
}

/** A fill pixel is foreign when the original under it differs from the fill by more than this (mapped through the LUT); above the mark itself (a few levels), which a plain crop of a flat dark area shows against the unmarked original. */
const FILL_MIN_DIFF = 8;
/** Share of the corner regions' pixels over the original that must differ so, for the regions to count as a fill. */
const FILL_MIN_SHARE = 0.2;

/**
 * The canvas an editor filled around a rotated image (any colour): the uniform regions reached from the four corners.
 * Where such a region covers original content (a crop came before the rotation), its pixels are foreign even when
 * their colour is close to the content's, which the block test of maskForeign cannot tell; they are set to NaN in W,
 * with a 2-pixel seam. Returns the number of pixels left out.
 */
export function maskCanvasFill(W: Float32Array, I: Float32Array, w: number, h: number, lut: Float64Array): number {
  const n = w * h;
  const region = canvasFillRegion(I, w, h);
  const foreign = new Uint8Array(n);
  let found = 0;
  let covered = 0;
  for (let k = 0; k < n; k++) {
    if (!region[k] || num.isNaN(W[k])) continue;
    covered++;
    if (math.abs(I[k] - lutAt(lut, W[k])) > FILL_MIN_DIFF) {
      foreign[k] = 1;
      found++;
    }
  }
  // a fill over content differs from it nearly everywhere; a flat area of the picture itself (a night sky) only
  // where the registration or the LUT is a little off
  if (found < 64 || found < FILL_MIN_SHARE * covered) return 0;
  const R = 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!foreign[y * w + x]) continue;
      for (let yy = math.max(0, y - R); yy <= math.min(h - 1, y + R); yy++) {
        for (let xx = math.max(0, x - R); xx <= math.min(w - 1, x + R); xx++) W[yy * w + xx] = num.NaN;
      }
    }
  }
  return found;
}
