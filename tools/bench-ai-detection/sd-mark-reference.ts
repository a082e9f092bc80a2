/*
 * The Stable Diffusion mark decoder against an outside reference and against unmarked images.
 * 1. Marked images made by reference-marks.py (Debian's python3-opencv and python3-pywt, written from the published
 *    invisible-watermark dwtDct algorithm, not from this project's encoder) from the corpus colour photos, for the
 *    four public messages, each as written (lossless), then JPEG 90 and resized 75%; the project's own test encoder
 *    beside it for comparison. Skipped (and said so) when Python's OpenCV is not installed.
 * 2. False alarms on N unmarked images derived from every corpus image (crops, scales, JPEG qualities, flips,
 *    rotations, and screenshot-like composites with rendered text): detections, and the 95% upper bound of the rate.
 * Prints tables; writes bench-results/sd-mark-reference.json.
 *   node -r ./tools/register.js tools/bench-ai-detection/sd-mark-reference.ts [--unmarked 2000]
 */
import { decodeSdMark, RgbImage, SD_MARK_MESSAGES, U_VARIANTS, upperBound95 } from '@cp/ai-detection';
import { encodeSdMark } from '@cp/ai-detection/testing';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';

const PHOTOS = join(__dirname, '../../../shared/corpus/photos');
const OUT = 'bench-results';
const MESSAGE_VARIANT: Record<string, number> = { sd1: 0, sd2: 0, 'sdxl-diffusers': 3, sgm: 2 };

async function rgb(bytes: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(bytes).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const png = (image: RgbImage): Promise<Buffer> => sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();
const jpeg90 = (bytes: Buffer): Promise<Buffer> => sharp(bytes).jpeg({ quality: 90 }).toBuffer();
const resize75 = async (bytes: Buffer): Promise<Buffer> => {
  const { width = 0 } = await sharp(bytes).metadata();
  return sharp(bytes).resize(Math.round(width * 0.75)).png().toBuffer();
};

interface MarkRow {
  source: 'reference (Python OpenCV)' | 'project encoder';
  message: string;
  edit: string;
  n: number;
  detected: number;
  rightMessage: number;
  meanMatchingShare: number;
}

async function colourPhotos(): Promise<Array<{ name: string; file: string; bytes: Buffer }>> {
  const out: Array<{ name: string; file: string; bytes: Buffer }> = [];
  for (const name of readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort()) {
    const file = join(PHOTOS, name);
    const bytes = readFileSync(file);
    const meta = await sharp(bytes).metadata();
    if ((meta.channels ?? 1) >= 3 && !['text.png', 'page.png'].includes(name)) out.push({ name, file, bytes });
  }
  return out;
}

async function markRows(): Promise<{ rows: MarkRow[]; reference: string }> {
  const photos = await colourPhotos();
  const dir = mkdtempSync(join(tmpdir(), 'sd-reference-'));
  const samples: Array<{ source: MarkRow['source']; message: string; bytes: Buffer }> = [];
  let reference = 'not run';
  try {
    try {
      // The 4 MP photo at 1280 px wide, as in the main benchmark.
      const inputs = await Promise.all(photos.map(async (p) => {
        if (!p.name.startsWith('kite')) return p.file;
        const scaled = join(dir, 'kite-1280.png');
        await sharp(p.bytes).resize(1280).png().toFile(scaled);
        return scaled;
      }));
      // Debian's interpreter: its python3-opencv and python3-pywt live there, whatever python3 comes first on PATH.
      execFileSync(existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3', [join(__dirname, 'reference-marks.py'), join(dir, 'marked'), ...inputs], { stdio: ['ignore', 'ignore', 'pipe'] });
      const manifest = JSON.parse(readFileSync(join(dir, 'marked', 'manifest.json'), 'utf8')) as { opencv: string; pywt: string; images: Array<{ file: string; message: string }> };
      reference = `OpenCV ${manifest.opencv}, PyWavelets ${manifest.pywt}`;
      for (const entry of manifest.images) samples.push({ source: 'reference (Python OpenCV)', message: entry.message, bytes: readFileSync(join(dir, 'marked', entry.file)) });
    } catch (error) {
      reference = `skipped: ${(error as Error).message.split('\n')[0]} (apt-get install python3-opencv python3-pywt)`;
    }
    for (const photo of photos) {
      const bytes = photo.name.startsWith('kite') ? await sharp(photo.bytes).resize(1280).png().toBuffer() : photo.bytes;
      const image = await rgb(bytes);
      for (const message of SD_MARK_MESSAGES) {
        samples.push({ source: 'project encoder', message: message.id, bytes: await png(encodeSdMark(image, message.bits, U_VARIANTS[MESSAGE_VARIANT[message.id]])) });
      }
    }
    const rows = new Map<string, MarkRow>();
    for (const sample of samples) {
      for (const [edit, make] of [['lossless PNG', (b: Buffer) => Promise.resolve(b)], ['JPEG 90', jpeg90], ['resized 75%', resize75]] as const) {
        const result = decodeSdMark(await rgb(await make(sample.bytes)));
        const key = `${sample.source}|${sample.message}|${edit}`;
        const row = rows.get(key) ?? { source: sample.source, message: sample.message, edit, n: 0, detected: 0, rightMessage: 0, meanMatchingShare: 0 };
        row.n++;
        if (result.detected) row.detected++;
        if (result.detected && result.best?.message === sample.message) row.rightMessage++;
        const own = SD_MARK_MESSAGES.find((m) => m.id === sample.message)!;
        row.meanMatchingShare += result.best?.message === sample.message ? result.best.matchingBits / own.bits.length : 0.5;
        rows.set(key, row);
      }
    }
    return { rows: [...rows.values()].map((r) => ({ ...r, meanMatchingShare: r.meanMatchingShare / r.n })), reference };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A deterministic generator, so the unmarked set is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

/** A screenshot-like image: a window frame, a title bar, a block of rendered text and the photo inside. */
async function screenshot(photo: Buffer, r: () => number, index: number): Promise<Buffer> {
  const width = 640 + Math.floor(r() * 640);
  const height = 400 + Math.floor(r() * 400);
  const inner = await sharp(photo).resize(Math.floor(width * 0.6), Math.floor(height * 0.6), { fit: 'inside' }).png().toBuffer();
  const lines = Array.from({ length: 8 }, (_, i) => `<text x="20" y="${60 + i * 22}" font-size="15" font-family="sans-serif" fill="#222">Line ${i + 1} of screenshot ${index}: the quick brown fox 0123456789</text>`).join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#f3f3f3"/><rect width="100%" height="32" fill="#3b5998"/><text x="12" y="22" font-size="16" font-family="sans-serif" fill="#fff">Window ${index}</text>${lines}</svg>`);
  return sharp(svg).composite([{ input: inner, left: Math.floor(width * 0.35), top: Math.floor(height * 0.35) }]).png().toBuffer();
}

async function falseAlarms(total: number): Promise<{ n: number; detections: number; upper95: number; minCorrected: number; kinds: Record<string, number> }> {
  const sources = readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort().map((f) => readFileSync(join(PHOTOS, f)));
  const r = random(20261126);
  let detections = 0;
  let minCorrected = 1;
  const kinds: Record<string, number> = {};
  for (let i = 0; i < total; i++) {
    const source = sources[i % sources.length];
    const { width = 0, height = 0 } = await sharp(source).metadata();
    const kind = ['crop', 'scaled', 'jpeg', 'rotated', 'screenshot'][i % 5];
    let bytes: Buffer;
    if (kind === 'crop') {
      const w = Math.max(64, Math.floor(width * (0.3 + 0.7 * r())));
      const h = Math.max(64, Math.floor(height * (0.3 + 0.7 * r())));
      bytes = await sharp(source).extract({ left: Math.floor(r() * (width - Math.min(w, width))), top: Math.floor(r() * (height - Math.min(h, height))), width: Math.min(w, width), height: Math.min(h, height) }).png().toBuffer();
    } else if (kind === 'scaled') {
      bytes = await sharp(source).resize(Math.max(64, Math.floor(width * (0.25 + 1.25 * r())))).png().toBuffer();
    } else if (kind === 'jpeg') {
      bytes = await sharp(source).jpeg({ quality: 40 + Math.floor(r() * 60) }).toBuffer();
    } else if (kind === 'rotated') {
      bytes = await sharp(source).rotate([90, 180, 270][Math.floor(r() * 3)]).flop(r() < 0.5).png().toBuffer();
    } else {
      bytes = await screenshot(source, r, i);
    }
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    const result = decodeSdMark(await rgb(bytes));
    if (result.detected) detections++;
    minCorrected = Math.min(minCorrected, result.correctedChanceProbability);
  }
  return { n: total, detections, upper95: upperBound95(detections, total), minCorrected, kinds };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { unmarked: { type: 'string', default: '2000' } } });
  const started = performance.now();
  const { rows, reference } = await markRows();
  console.log(`Reference marks: ${reference}\n`);
  console.log('| marked by | message | then | n | detected | right message | mean share of bits read |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.source} | ${row.message} | ${row.edit} | ${row.n} | ${row.detected} | ${row.rightMessage} | ${(row.meanMatchingShare * 100).toFixed(1)}% |`);
  }
  const fa = await falseAlarms(Number(values.unmarked));
  console.log(`\nUnmarked images derived from the corpus (${Object.entries(fa.kinds).map(([k, n]) => `${n} ${k}`).join(', ')}): ${fa.detections} false detection(s) in ${fa.n}; 95% upper bound of the rate ${(fa.upper95 * 100).toFixed(3)}%; smallest corrected chance probability seen ${fa.minCorrected.toExponential(2)} (limit 1e-6)`);
  console.log(`(${Math.round((performance.now() - started) / 1000)} s on a shared 2-core machine)`);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'sd-mark-reference.json'), JSON.stringify({ measuredAt: new Date().toISOString(), reference, rows, falseAlarms: fa }, null, 2));
}

void main();
