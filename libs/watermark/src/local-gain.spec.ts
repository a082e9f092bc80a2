import { localGain, vignetteField } from './local-gain';
import { fitLut } from './tone';

/** The identity LUT in fitLut's form (64 bins over 0…256, bin centres). */
function identityLut(): Float64Array {
  return Float64Array.from({ length: 64 }, (_, b) => ((b + 0.5) * 256) / 64);
}

/**
 * A textured plane (values 40…220; brighter towards the centre when `centreBright`, so that LUT and field are hard to
 * tell apart) and the same plane under a radial vignette 1 − v·r² (r = 1 at the corners).
 */
function vignetted(w: number, h: number, v: number, centreBright = false): { W: Float32Array; I: Float32Array; truth: Float32Array } {
  const W = new Float32Array(w * h);
  const I = new Float32Array(w * h);
  const truth = new Float32Array(w * h);
  let s = 12345;
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const k = y * w + x;
      const r2 = ((x - cx) ** 2 + (y - cy) ** 2) / (cx * cx + cy * cy);
      W[k] = centreBright ? 40 + 90 * (s / 2 ** 32) + 90 * (1 - r2) : 40 + 180 * (s / 2 ** 32);
      truth[k] = 1 - v * r2;
      I[k] = W[k] * truth[k];
    }
  }
  return { W, I, truth };
}

describe('localGain', () => {
  it('recovers a radial vignette to within 0.1 % of the gain everywhere (the block field alone was off by more)', () => {
    const { W, I, truth } = vignetted(400, 300, 0.6);
    const field = localGain(W, I, 400, 300, identityLut());
    expect(field).not.toBeNull();
    let worst = 0;
    field?.forEach((g, k) => (worst = Math.max(worst, Math.abs(g - truth[k]))));
    expect(worst).toBeLessThan(0.001);
  });

  it('finds no field on an unedited copy, nor one that takes less than the share asked for', () => {
    const { W } = vignetted(400, 300, 0.6);
    // a copy with noise only: no smooth gain explains it better
    let s = 99;
    const noisy = W.map((p) => {
      s = (s * 1103515245 + 12345) >>> 0;
      return p + 10 * (s / 2 ** 32 - 0.5);
    });
    expect(localGain(W, noisy, 400, 300, identityLut())).toBeNull();
    // a slight vignette takes a small share of a noisy residual: found when a small share is enough only
    const { I: faint } = vignetted(400, 300, 0.02);
    const faintNoisy = faint.map((p, k) => p + (noisy[k] - W[k]));
    expect(localGain(W, faintNoisy, 400, 300, identityLut())).toBeNull();
    expect(localGain(W, faintNoisy, 400, 300, identityLut(), 0.005)).not.toBeNull();
  });

  // two turns of LUT and field (before the eighth pass) left 0.6 % of the gain here; 24 leave 0.02 %
  it('vignetteField: a tone curve under the vignette, a picture brighter at the centre: the division leaves no trace of the vignette', () => {
    const w = 400;
    const h = 300;
    const { W, truth } = vignetted(w, h, 0.6, true);
    const toned = W.map((p) => 255 * (p / 255) ** 0.7);
    const I = toned.map((p, k) => p * truth[k]);
    const lut = fitLut(W, I);
    if (!lut) throw new Error('no LUT');
    const found = vignetteField(W, I, w, h, lut);
    expect(found).not.toBeNull();
    // divided / toned is one constant (the split of a common factor between LUT and field is free) everywhere
    const ratio = (found?.divided ?? new Float32Array(0)).map((d, k) => d / toned[k]);
    const mean = ratio.reduce((a, b) => a + b, 0) / ratio.length;
    const sd = Math.sqrt(ratio.reduce((a, b) => a + (b - mean) ** 2, 0) / ratio.length);
    expect(ratio.length).toBe(w * h);
    expect(sd / mean).toBeLessThan(0.002);
    // an unedited copy has no field
    expect(vignetteField(W, W, w, h, fitLut(W, W) ?? lut)).toBeNull();
  });
});

