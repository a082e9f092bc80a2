/*
 * AI-detection benchmark: a labelled set generated from the corpus photos (unmarked, with the Stable Diffusion marks
 * embedded by the test encoder and then edited, with generator metadata, with that metadata stripped, with signed
 * C2PA manifests (AI, capture, changed after signing)), the
 * probability distribution and category per group, false likely_ai on unmarked photos, detection rates after
 * edits, and the time of one 12-megapixel detection. Prints a table, writes bench-results/ai-detection.json.
 */
import { AiDetector, DetectionCategory, SD_MARK_MESSAGES, U_VARIANTS } from '@cp/ai-detection';
import { encodeSdMark, tamperedAfterSigning, withContentCredentials, withPngTextChunk } from '@cp/ai-detection/testing';
import { ExifTool } from 'exiftool-vendored';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

const PHOTOS = join(__dirname, '../../../shared/corpus/photos');
const OUT = 'bench-results';
/** Pipeline variant each message is embedded with (as the public pipelines do). */
const MESSAGE_VARIANT: Record<string, number> = { sd1: 0, sd2: 0, 'sdxl-diffusers': 3, sgm: 2 };

interface Sample {
  group: string;
  name: string;
  bytes: Buffer;
  /** true for images that are (labelled) AI-generated. */
  ai: boolean;
}

interface Row {
  group: string;
  n: number;
  min: number;
  median: number;
  max: number;
  categories: Record<DetectionCategory, number>;
  likelyAi: number;
  /** Share of AI-labelled samples reaching likely_ai (null for unmarked groups). */
  detectionRate: number | null;
}

async function rgb(bytes: Buffer): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(bytes).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const toPng = (image: { data: Uint8Array; width: number; height: number }): Promise<Buffer> =>
  sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();
const jpeg90 = (bytes: Buffer): Promise<Buffer> => sharp(bytes).jpeg({ quality: 90 }).toBuffer();
const resize75 = async (bytes: Buffer): Promise<Buffer> => {
  const { width = 0 } = await sharp(bytes).metadata();
  return sharp(bytes).resize(Math.round(width * 0.75)).png().toBuffer();
};

async function withTags(exiftool: ExifTool, dir: string, name: string, bytes: Buffer, tags: Record<string, string>): Promise<Buffer> {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  await exiftool.write(file, tags, { writeArgs: ['-overwrite_original'] });
  return readFileSync(file);
}

async function buildSet(): Promise<Sample[]> {
  const samples: Sample[] = [];
  const photos = readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort();
  const colour: Array<{ name: string; bytes: Buffer }> = [];
  for (const name of photos) {
    const original = readFileSync(join(PHOTOS, name));
    // The 4 MP photo is scaled to 1 MP here so the set stays quick; the 12 MP timing uses it at full scale.
    const bytes = name.startsWith('kite') ? await sharp(original).resize(1280).jpeg({ quality: 92 }).toBuffer() : original;
    samples.push({ group: 'unmarked photo (as is)', name, bytes, ai: false });
    samples.push({ group: 'unmarked photo, JPEG 90', name, bytes: await jpeg90(bytes), ai: false });
    samples.push({ group: 'unmarked photo, resized 75%', name, bytes: await resize75(bytes), ai: false });
    const meta = await sharp(bytes).metadata();
    if ((meta.channels ?? 1) >= 3 && !['text.png', 'page.png'].includes(name)) colour.push({ name, bytes });
  }
  for (const { name, bytes } of colour) {
    const image = await rgb(bytes);
    for (const message of SD_MARK_MESSAGES) {
      const marked = await toPng(encodeSdMark(image, message.bits, U_VARIANTS[MESSAGE_VARIANT[message.id]]));
      const label = `${name} ${message.id}`;
      samples.push({ group: 'SD mark, lossless PNG', name: label, bytes: marked, ai: true });
      samples.push({ group: 'SD mark, then JPEG 90', name: label, bytes: await jpeg90(marked), ai: true });
      samples.push({ group: 'SD mark, then resized 75%', name: label, bytes: await resize75(marked), ai: true });
    }
  }
  const exiftool = new ExifTool({ maxProcs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'bench-ai-'));
  try {
    for (const { name, bytes } of colour.slice(0, 3)) {
      const png = await sharp(bytes).png().toBuffer();
      const jpg = await sharp(bytes).jpeg({ quality: 92 }).toBuffer();
      const generated = [
        await withTags(exiftool, dir, 'a.png', png, { 'PNG:Parameters': 'a photo of a harbour\nSteps: 30, Sampler: DPM++ 2M, CFG scale: 7, Seed: 42, Model: sdxl_base' }),
        withPngTextChunk(withPngTextChunk(png, 'prompt', '{"3":{"class_type":"KSampler","inputs":{"seed":1}}}'), 'workflow', '{"nodes":[]}'),
        await withTags(exiftool, dir, 'c.jpg', jpg, { 'XMP-iptcExt:DigitalSourceType': 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }),
        await withTags(exiftool, dir, 'd.jpg', jpg, { Software: 'Midjourney v6' }),
      ];
      for (const bytesWithTags of generated) {
        samples.push({ group: 'generator metadata', name, bytes: bytesWithTags, ai: true });
        // Stripping: any re-encode without metadata (what most upload pipelines do).
        samples.push({ group: 'generator metadata stripped', name, bytes: await sharp(bytesWithTags).png().toBuffer(), ai: true });
      }
      // Real signed C2PA manifests (c2pa-rs; a development signer that the detector does not trust).
      const signedAi = await withContentCredentials(png, 'trainedAlgorithmicMedia');
      samples.push({ group: 'C2PA signed, AI source type', name, bytes: signedAi, ai: true });
      samples.push({ group: 'C2PA signed, AI, then re-encoded (manifest gone)', name, bytes: await sharp(signedAi).png().toBuffer(), ai: true });
      samples.push({ group: 'C2PA signed, AI, pixels changed after signing', name, bytes: await tamperedAfterSigning(signedAi), ai: true });
      samples.push({ group: 'C2PA signed, capture source type', name, bytes: await withContentCredentials(png, 'digitalCapture', 'Example Camera'), ai: false });
      samples.push({
        group: 'declared capture (unsigned XMP)',
        name,
        bytes: await withTags(exiftool, dir, 'e.jpg', jpg, { 'XMP-iptcExt:DigitalSourceType': 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' }),
        ai: false,
      });
    }
  } finally {
    await exiftool.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return samples;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const detector = await AiDetector.create({ maxPixels: 100_000_000 });
  try {
    const samples = await buildSet();
    const results = new Map<string, Array<{ probability: number; category: DetectionCategory; ai: boolean }>>();
    for (const sample of samples) {
      const result = await detector.detect(sample.bytes);
      const list = results.get(sample.group) ?? [];
      list.push({ probability: result.probability, category: result.category, ai: sample.ai });
      results.set(sample.group, list);
    }
    const rows: Row[] = [...results.entries()].map(([group, list]) => {
      const categories: Record<DetectionCategory, number> = { likely_real: 0, uncertain_real: 0, uncertain_ai: 0, likely_ai: 0 };
      for (const r of list) categories[r.category]++;
      const ps = list.map((r) => r.probability);
      const ai = list.filter((r) => r.ai);
      return {
        group,
        n: list.length,
        min: Math.min(...ps),
        median: median(ps),
        max: Math.max(...ps),
        categories,
        likelyAi: categories.likely_ai,
        detectionRate: ai.length ? ai.filter((r) => r.category === 'likely_ai').length / ai.length : null,
      };
    });

    // One 12-megapixel JPEG (the 4 MP corpus photo scaled to 4240×2832), best of 3.
    const big = await sharp(readFileSync(join(PHOTOS, 'kite-2560x1600.jpg'))).resize(4240, 2832, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    await detector.detect(big);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await detector.detect(big);
      times.push(performance.now() - start);
    }

    const f = (p: number): string => p.toFixed(3);
    console.log('| group | n | probability min / median / max | likely_real / uncertain_real / uncertain_ai / likely_ai | false likely_ai | detected (likely_ai) |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) {
      const c = r.categories;
      const falseAi = r.detectionRate === null ? String(r.likelyAi) : '—';
      const rate = r.detectionRate === null ? '—' : `${Math.round(r.detectionRate * 1000) / 10}%`;
      console.log(`| ${r.group} | ${r.n} | ${f(r.min)} / ${f(r.median)} / ${f(r.max)} | ${c.likely_real} / ${c.uncertain_real} / ${c.uncertain_ai} / ${c.likely_ai} | ${falseAi} | ${rate} |`);
    }
    console.log(`\n12 MP JPEG (4240×2832), one detection, best of 3: ${Math.round(Math.min(...times))} ms (all: ${times.map((t) => Math.round(t)).join(', ')} ms)`);
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'ai-detection.json'), JSON.stringify({ measuredAt: new Date().toISOString(), rows, twelveMegapixelMs: times }, null, 2));
  } finally {
    await detector.close();
  }
}

void main();
