import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeSdMark, syntheticPhoto } from '../../testing';
import { sdMarkSignal } from './sd-mark.signal';
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

describe('Stable Diffusion mark finding: what its description says', () => {
  const photo = syntheticPhoto(384, 256, 7);

  // A mark read with 8 of 48 bits wrong is far from chance (about 1 in 38,000 by the binomial model) yet not
  // counted (the bar is 1e-6): the finding said "as likely as chance", hiding a near miss from the reader.
  it('calls a near miss a near miss, with its chance and the bar, never "as likely as chance"', () => {
    const message = SD_MARK_MESSAGES.find((m) => m.id === 'sdxl-diffusers')!;
    const damaged = message.bits.map((bit, i) => (i % 6 === 0 ? 1 - bit : bit));
    const [finding] = sdMarkSignal(encodeSdMark(photo, damaged, U_VARIANTS[3])).evidence;
    expect(finding.finding).toBe('sdWatermark.notFound');
    expect(finding.details['matchingBits']).toBe(40);
    expect(finding.description).not.toMatch(/as likely as chance/);
    expect(finding.description).toMatch(/^No Stable Diffusion mark counted: best match 40\/48 bits; chance of such a match on an unmarked image if its bits were fair coins 2\.6e-5 \(all 16 readings counted\), counted only below 1e-6\./);
  });

  it('says the chance is a model figure (fair-coin bits), not a measured false-alarm rate', () => {
    const message = SD_MARK_MESSAGES.find((m) => m.id === 'sd2')!;
    const [finding] = sdMarkSignal(encodeSdMark(photo, message.bits, U_VARIANTS[0])).evidence;
    expect(finding.finding).toBe('sdWatermark.detected');
    expect(finding.description).toMatch(/if its bits were fair coins/);
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
