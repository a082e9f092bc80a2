import sharp from 'sharp';
import { cellObservations, DETECT_THRESHOLD } from './cell-decode';
import { checkInput, decodeLuma, decodeRgb } from './codec';
import { embedImage, flatMarkField, planMark } from './embed';
import { workingScales } from './extract';
import { applyH, Homography } from './image';
import { cellPositions, MarkGrid, markEnergy, polishOnMark } from './mark-sync';
import { amplitudeMaps } from './pattern';
import { registeredDecode } from './registered-decode';
import { coffeeJpg, skyJpeg } from './testing/fixtures';
import { mulberry32 } from './testing/random';

// An original of 320 x 240 whose mark is drawn flat (no texture masking), and a 200 x 150 copy of part of it scaled
// by 1/1.03: the residual the decoding would project is that part of the mark plus Gaussian noise.
const key = { secret: 'mark-sync-spec', version: 'v3' as const };
const W = 320;
const H = 240;
const iw = 200;
const ih = 150;
const plan = planMark(W, H, 0x1234abcdn, key);
const field = flatMarkField(plan, W, H);
const grid: MarkGrid = { layers: plan.layers, amps: amplitudeMaps(new Float32Array(plan.dims[0][0] * plan.dims[0][1]), plan.dims), width: W, height: H };
const truth: Homography = Float64Array.from([1.03, 0, 30, 0, 1.03, 20, 0, 0, 1]);
// what an image registration right near the top-left corner but 3 % off in scale would give: 2.2 px off there, 5 px
// at the far corner (more than a fine cell of 4 px)
const start: Homography = Float64Array.from([1, 0, 32, 0, 1, 21, 0, 0, 1]);

function markAt(x: number, y: number): number {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const at = (a: number, b: number): number => field[Math.min(H - 1, Math.max(0, b)) * W + Math.min(W - 1, Math.max(0, a))];
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}

function residual(withMark: boolean, sigma: number, seed: number, w = iw, h = ih): Float32Array {
  const rand = mulberry32(seed);
  const r = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [a, b] = applyH(truth, x, y);
      const g = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
      r[y * w + x] = (withMark ? markAt(a, b) : 0) + sigma * g;
    }
  }
  return r;
}

/** The largest distance between where two geometries put a corner of the copy. */
function cornersApart(A: Homography, B: Homography): number {
  return Math.max(
    ...[[0, 0], [iw - 1, 0], [iw - 1, ih - 1], [0, ih - 1]].map(([x, y]) => {
      const [a, b] = applyH(A, x, y);
      const [c, d] = applyH(B, x, y);
      return Math.hypot(a - c, b - d);
    }),
  );
}

/** What the decoding observes at G: each layer's cell estimates and variances. */
function observedAt(G: Homography, r: Float32Array, w = iw, h = ih): { e: Float32Array[]; v: Float32Array[] } {
  const { qx, qy } = cellPositions(G, w, h, W, H);
  const obs = grid.layers.map((layer) => cellObservations(layer, qx, qy, r));
  return { e: obs.map((o) => o.e), v: obs.map((o) => o.v) };
}

function energyAt(G: Homography, r: Float32Array): ReturnType<typeof markEnergy> {
  const { qx, qy } = cellPositions(G, iw, ih, W, H);
  return markEnergy(grid, qx, qy, r, 32);
}

describe('mark-sync', () => {
  it("the excess is about 0 without a mark and many spreads at the mark's geometry", () => {
    const noise = energyAt(truth, residual(false, 6, 1));
    expect(Math.abs(noise.excess)).toBeLessThan(3 * noise.nullSpread);
    const marked = energyAt(truth, residual(true, 6, 1));
    expect(marked.excess).toBeGreaterThan(10 * marked.nullSpread);
    expect(marked.ratio).toBeGreaterThan(1.2);
  });

  it('climbs from a registration a few pixels off to within a pixel and a half of the truth', () => {
    expect(cornersApart(start, truth)).toBeGreaterThan(4.5);
    for (const sigma of [4, 8]) {
      const r = residual(true, sigma, 2);
      const found = polishOnMark(start, iw, ih, grid, r, observedAt(start, r));
      expect(found).not.toBeNull();
      expect(cornersApart(found as Homography, truth)).toBeLessThan(1.5);
    }
  });

  it('leaves the registration alone where no mark shows', () => {
    const r = residual(false, 6, 3);
    expect(polishOnMark(start, iw, ih, grid, r, observedAt(start, r))).toBeNull();
  });

  it('registered decoding: a dark sky with a small subject, resized to 45 %, cropped, JPEG 50, given a registration 3 % off in scale about the subject, decodes only with the polish', async () => {
    const sky = await skyJpeg(960, 600, 5);
    const scene = await sharp(sky)
      .composite([{ input: await sharp(coffeeJpg()).resize(240, 160).toBuffer(), left: 120, top: 100 }])
      .png()
      .toBuffer();
    // a night grade: a quarter of the exposure
    const original = await sharp(scene).linear(0.25, 2).jpeg({ quality: 92 }).toBuffer();
    const payload = 0x5eed1234n;
    const marked = await embedImage(original, payload, { key });
    const sw = Math.round(960 * 0.45);
    const sh = Math.round(600 * 0.45);
    const [left, top, cw, ch] = [20, 10, Math.round(sw * 0.75), Math.round(sh * 0.75)];
    const small = await sharp(marked.data).resize(sw, sh, { fit: 'fill' }).png().toBuffer();
    const copy = await sharp(small).extract({ left, top, width: cw, height: ch }).jpeg({ quality: 50 }).toBuffer();
    const oh = checkInput(original, 1e9);
    const ih = checkInput(copy, 1e9);
    const { s, si } = workingScales(oh, ih);
    const O = await decodeLuma(original, oh, s);
    const I = await decodeLuma(copy, ih, si);
    // copy pixel x -> original pixel (x + left + 0.5) * 960 / sw - 0.5, in working pixels, with the scale 3 % too large
    // (the subject sits near the copy's top-left corner, where the error is smallest)
    const [sx, sy] = [(960 / sw) * 1.03, (600 / sh) * 1.03];
    const off: Homography = Float64Array.from([(s * sx) / si, 0, s * ((left + 0.5) * (960 / sw) - 0.5), 0, (s * sy) / si, s * ((top + 0.5) * (600 / sh) - 0.5), 0, 0, 1]);
    const rgb = (): ReturnType<typeof decodeRgb> => decodeRgb(original, oh, s);
    const without = await registeredDecode(O, I, off, key, rgb, null, null, false);
    expect(without?.payload === payload && without.agreement >= DETECT_THRESHOLD).toBe(false);
    const withPolish = await registeredDecode(O, I, off, key, rgb, null, null);
    expect(withPolish?.payload).toBe(payload);
    expect(withPolish?.agreement ?? 0).toBeGreaterThan(0.5);
  });
});
