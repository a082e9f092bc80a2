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
  /**
   * Medians over the rounds: the best round hides how much a figure varies from call to call (a loop V8 left in
   * the interpreter on some calls), the median shows it.
   */
  median: { plain: number; embed: number; decodeBoth: number; extract: number };
}

function medianOf(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? Infinity : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The 12 MP JPEG (4240 x 2832, quality 90) the speed line is measured on, made from a corpus photo. */
export function twelveMegapixels(photo: Buffer): Promise<Buffer> {
  return sharp(photo).resize(4240, 2832).jpeg({ quality: 90 }).toBuffer();
}

/** Best and median times (ms) over `reps` rounds of plain re-encode, embed, decode of both, extract (this machine shares its cores). */
export async function measureSpeed(big: Buffer, key: WatermarkKey, reps: number): Promise<SpeedBest> {
  const times = { plain: [] as number[], embed: [] as number[], decodeBoth: [] as number[], extract: [] as number[] };
  let failures = 0;
  for (let i = 0; i < reps; i++) {
    let t = performance.now();
    await sharp(big).jpeg({ quality: 90 }).toBuffer();
    times.plain.push(performance.now() - t);
    t = performance.now();
    const marked = (await embedImage(big, PAYLOAD, { key })).data;
    times.embed.push(performance.now() - t);
    t = performance.now();
    await sharp(marked).raw().toBuffer();
    await sharp(big).raw().toBuffer();
    times.decodeBoth.push(performance.now() - t);
    t = performance.now();
    const res = await extractImage(marked, big, { key });
    times.extract.push(performance.now() - t);
    if (res.payload !== PAYLOAD) failures++;
  }
  const best = (v: number[]): number => Math.min(Infinity, ...v);
  return {
    plain: best(times.plain),
    embed: best(times.embed),
    decodeBoth: best(times.decodeBoth),
    extract: best(times.extract),
    failures,
    median: { plain: medianOf(times.plain), embed: medianOf(times.embed), decodeBoth: medianOf(times.decodeBoth), extract: medianOf(times.extract) },
  };
}
