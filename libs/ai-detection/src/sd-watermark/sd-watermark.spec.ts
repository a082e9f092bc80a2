import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeSdMark, syntheticPhoto } from '../../testing';
import { binomialTail, decodeSdMark, SD_MARK_MESSAGES, U_VARIANTS } from './sd-watermark';

describe('Stable Diffusion invisible mark decoder', () => {
  const photo = syntheticPhoto(384, 256, 7);

  it('computes the binomial chance of a match', () => {
    expect(binomialTail(4, 4)).toBeCloseTo(1 / 16, 12);
    expect(binomialTail(4, 3)).toBeCloseTo(5 / 16, 12);
    expect(binomialTail(10, 0)).toBe(1);
    expect(binomialTail(32, 32)).toBeCloseTo(2 ** -32, 20);
    expect(binomialTail(48, 49)).toBe(0);
  });

  it('derives the public messages (SDV2 = 32 bits, generative-models drops its two leading zero bits)', () => {
    const lengths = Object.fromEntries(SD_MARK_MESSAGES.map((m) => [m.id, m.bits.length]));
    expect(lengths).toEqual({ sd1: 136, sd2: 32, 'sdxl-diffusers': 48, sgm: 46 });
    expect(SD_MARK_MESSAGES[1].bits.slice(0, 8)).toEqual([0, 1, 0, 1, 0, 0, 1, 1]); // 'S'
  });

  it('finds no mark in an unmarked image', () => {
    const result = decodeSdMark(photo);
    expect(result.detected).toBe(false);
    expect(result.correctedChanceProbability).toBeGreaterThan(1e-6);
  });

  it.each([
    ['sd1', 0],
    ['sd2', 0],
    ['sdxl-diffusers', 3],
    ['sgm', 2],
  ] as const)('reads the %s message in its pipeline variant', (id, variantIndex) => {
    const message = SD_MARK_MESSAGES.find((m) => m.id === id)!;
    const marked = encodeSdMark(photo, message.bits, U_VARIANTS[variantIndex]);
    const result = decodeSdMark(marked);
    expect(result.detected).toBe(true);
    expect(result.best?.message).toBe(id);
    expect(result.best!.matchingBits).toBeGreaterThanOrEqual(Math.ceil(message.bits.length * 0.85));
    expect(result.correctedChanceProbability).toBeLessThan(1e-6);
  });
});

describe('Stable Diffusion mark decoder against marks made outside the project', () => {
  // Made with Debian's Python OpenCV from the published dwtDct algorithm (testing/reference-marks/README.md).
  const dir = join(__dirname, '../../testing/reference-marks');

  it.each(['sd1', 'sd2', 'sdxl-diffusers', 'sgm'])('reads the %s reference mark as that message, beyond the false-alarm limit', async (id) => {
    const { data, info } = await sharp(await readFile(join(dir, `coffee-crop.${id}.png`))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const result = decodeSdMark({ data: new Uint8Array(data), width: info.width, height: info.height });
    expect(result.detected).toBe(true);
    expect(result.best?.message).toBe(id);
    expect(result.best!.matchingBits / result.best!.totalBits).toBeGreaterThanOrEqual(0.9);
  });
});
