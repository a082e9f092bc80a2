/* The 12 MP speed line shared by main.ts and speed.ts: best of `reps` alternating runs of each figure. */
import sharp from 'sharp';
import { embedImage, extractImage, WatermarkKey } from '@cp/watermark';

const PAYLOAD = 0xfeedfacecafebeefn;

export interface SpeedBest {
  /** Plain sharp decode + JPEG 90 encode. */
  plain: number;
  embed: number;
  /** Decoding the marked copy and the original to pixels. */
  decodeBoth: number;
  extract: number;
  /** Extractions that did not return the payload. */
  failures: number;
}

/** The 12 MP JPEG (4240 x 2832, quality 90) the speed line is measured on, made from a corpus photo. */
export function twelveMegapixels(photo: Buffer): Promise<Buffer> {
  return sharp(photo).resize(4240, 2832).jpeg({ quality: 90 }).toBuffer();
}

/** Best times (ms) over `reps` rounds of plain re-encode, embed, decode of both, extract (this machine shares its cores). */
export async function measureSpeed(big: Buffer, key: WatermarkKey, reps: number): Promise<SpeedBest> {
  const best: SpeedBest = { plain: Infinity, embed: Infinity, decodeBoth: Infinity, extract: Infinity, failures: 0 };
  for (let i = 0; i < reps; i++) {
    let t = performance.now();
    await sharp(big).jpeg({ quality: 90 }).toBuffer();
    best.plain = Math.min(best.plain, performance.now() - t);
    t = performance.now();
    const marked = (await embedImage(big, PAYLOAD, { key })).data;
    best.embed = Math.min(best.embed, performance.now() - t);
    t = performance.now();
    await sharp(marked).raw().toBuffer();
    await sharp(big).raw().toBuffer();
    best.decodeBoth = Math.min(best.decodeBoth, performance.now() - t);
    t = performance.now();
    const res = await extractImage(marked, big, { key });
    best.extract = Math.min(best.extract, performance.now() - t);
    if (res.payload !== PAYLOAD) best.failures++;
  }
  return best;
}
