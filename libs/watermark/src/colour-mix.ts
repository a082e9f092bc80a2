/**
 * Colour toning (issue 34): a sepia-like filter maps each output channel from a mix of the input's R, G and B, so the
 * edited luma is not a function of the original luma: two pixels of the same luma but different colours come out
 * different, and no LUT on luma can predict it (the host picture stays in the residual; on a sepia of the astronaut
 * the soft agreement fell from 0.96 / 0.97 to 0.64 / 0.76). The inspected luma is fitted as a linear mix of the
 * original's colour channels (least squares, then the usual LUT on top for the tone curve); the mix is used when it
 * predicts clearly better than the luma LUT. The mark is added equally to R, G and B, so any mix passes it on.
 */
import { sampleCubicOrNaN, solve } from './image';
import { fitLut, lutAt, reducedLikeLuma, RgbPlanes, warpPlane } from './tone';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

/** Residual energy per pixel (levels²) of the LUT prediction above which a colour mix is worth trying (JPEG 70 leaves ~10). */
export const MIX_MIN_MSE = 15;
/** The mix must take away at least this share of the LUT's residual energy. */
const MIX_MIN_DROP = 0.2;

/** Mean squared error of lut(W) against I over the valid pixels. */
export function lutResidualMse(W: Float32Array, I: Float32Array, lut: Float64Array): number {
  let e = 0;
  let n = 0;
  // every few pixels (about 40,000): an estimate is enough for the decision
  const step = math.max(1, math.floor(W.length / 40_000));
  for (let k = 0; k < W.length; k += step) {
    if (num.isNaN(W[k])) continue;
    e += (I[k] - lutAt(lut, W[k])) ** 2;
    n++;
  }
  return n ? e / n : 0;
}

/**
 * The original's colour mixed as the edit mixed it, warped onto the inspected pixels (NaN where W is), or null when
 * the mix does not predict the inspected luma clearly better than the luma LUT.
 */
export function colourMix(rgb: RgbPlanes, W: Float32Array, I: Float32Array, w: number, h: number, sigma: number, qx: Float32Array, qy: Float32Array, lut1: Float64Array): Float32Array | null {
  const step = math.max(1, math.round(math.sqrt((w * h) / 20_000)));
  const pr = reducedLikeLuma(rgb.r, rgb, sigma);
  const pg = reducedLikeLuma(rgb.g, rgb, sigma);
  const pb = reducedLikeLuma(rgb.b, rgb, sigma);
  const A = new Float64Array(16);
  const v = new Float64Array(4);
  const samples: number[] = [];
  let lutErr = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const k = y * w + x;
      if (num.isNaN(W[k]) || I[k] <= 0.5 || I[k] >= 254.5) continue;
      const a = qx[k] * pr.w - 0.5;
      const b = qy[k] * pr.h - 0.5;
      const row = [sampleCubicOrNaN(pr.d, pr.w, pr.h, a, b), sampleCubicOrNaN(pg.d, pg.w, pg.h, a, b), sampleCubicOrNaN(pb.d, pb.w, pb.h, a, b), 1];
      if (num.isNaN(row[0]) || num.isNaN(row[1]) || num.isNaN(row[2])) continue;
      for (let i = 0; i < 4; i++) {
        v[i] += row[i] * I[k];
        for (let j = 0; j < 4; j++) A[i * 4 + j] += row[i] * row[j];
      }
      samples.push(row[0], row[1], row[2], I[k]);
      lutErr += (I[k] - lutAt(lut1, W[k])) ** 2;
    }
  }
  const n = samples.length / 4;
  if (n < 256) return null;
  const c = solve(A, v, 4);
  if (!c) return null;
  const sum = c[0] + c[1] + c[2];
  if (!(sum > 0.2)) return null;
  // a luma-like plane (weights summing to 1) so the LUT's bins cover it, the LUT then takes the tone curve
  const wr = c[0] / sum;
  const wg = c[1] / sum;
  const wb = c[2] / sum;
  const Y = new Float32Array(n);
  const Is = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    Y[j] = wr * samples[4 * j] + wg * samples[4 * j + 1] + wb * samples[4 * j + 2];
    Is[j] = samples[4 * j + 3];
  }
  const lut = fitLut(Y, Is);
  if (!lut) return null;
  let mixErr = 0;
  for (let j = 0; j < n; j++) mixErr += (Is[j] - lutAt(lut, Y[j])) ** 2;
  if (mixErr > (1 - MIX_MIN_DROP) * lutErr) return null;
  const mixed = new Float32Array(rgb.r.length);
  for (let k = 0; k < mixed.length; k++) mixed[k] = math.max(0, math.min(255, wr * rgb.r[k] + wg * rgb.g[k] + wb * rgb.b[k]));
  return warpPlane(mixed, rgb, sigma, qx, qy, W);
}

