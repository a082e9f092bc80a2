/*
 * AI-detection benchmark that can fail: real-world-shaped files whose evidence the detector's code did not write.
 * Tags are written by ExifTool (`exiftool-vendored`) and by libvips (sharp's XMP/EXIF writers); files are re-saved
 * by libvips encoders and, when Debian's python3-opencv is installed, by OpenCV; Content Credentials are signed by a
 * second signer with its own certificate chain, once trusted (its root added to the shipped C2PA Trust List, as an
 * operator would) and once not (a third signer nobody lists); Stable Diffusion marks come from reference-marks.py
 * (Python OpenCV, not the project's encoder) when available. Each file has a truth (generated, edited with AI,
 * captured) and the verdict a careful reader should get from its evidence; the table compares.
 * The run FAILS (exit code 1) when any captured file is called generated or edited with AI, or any AI file captured.
 * Prints a confusion table per verdict and a table per group; writes bench-results/ai-detection.json.
 *   node -r ./tools/register.js tools/bench-ai-detection/main.ts
 */
import { AiDetector, DetectionVerdict, TRUST_SNAPSHOT_DIR } from '@cp/ai-detection';
import { ContentCredentialsSigner, generateDevelopmentCredentials, loadSigningCredentials } from '@cp/anti-ai';
import { ExifTool } from 'exiftool-vendored';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

const PHOTOS = join(__dirname, '../../../shared/corpus/photos');
const OUT = 'bench-results';
const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
type Truth = 'generated' | 'edited_with_ai' | 'captured';

interface Sample {
  group: string;
  name: string;
  bytes: Buffer;
  truth: Truth;
  /** What the evidence in the file supports (unsigned claims alone: cannot be determined). */
  expected: DetectionVerdict;
}

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function pythonAvailable(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import cv2, pywt'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ai-'));
  const exiftool = new ExifTool({ maxProcs: 1 });
  const python = pythonAvailable();
  // A second signer with its own chain, trusted by configuration; a third one that no list names.
  const trustedCredentials = await generateDevelopmentCredentials('Second Newsroom Camera signer');
  const untrustedCredentials = await generateDevelopmentCredentials('Unknown Generator signer');
  const trusted = new ContentCredentialsSigner(loadSigningCredentials(trustedCredentials));
  const untrusted = new ContentCredentialsSigner(loadSigningCredentials(untrustedCredentials));
  const trustList = join(dir, 'trust-list.pem');
  writeFileSync(trustList, `${readFileSync(join(TRUST_SNAPSHOT_DIR, 'c2pa-trust-list.pem'), 'utf8')}\n${trustedCredentials.trustAnchorPem ?? ''}`);
  const detector = await AiDetector.create({ maxPixels: 100_000_000, c2paTrust: { trustListPath: trustList } });

  const tagged = async (name: string, bytes: Buffer, tags: Record<string, string | number>): Promise<Buffer> => {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    await exiftool.write(file, tags, { writeArgs: ['-overwrite_original'] });
    return readFileSync(file);
  };
  const xmp = (sourceType: string): string =>
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" Iptc4xmpExt:DigitalSourceType="${IPTC}${sourceType}"/></rdf:RDF></x:xmpmeta>`;
  const sign = (signer: ContentCredentialsSigner, png: Buffer, sourceType: string, generator: string): Promise<Buffer> =>
    signer.sign(png, 'png', { title: 'image.png', claimGenerator: generator, origin: 'created', actions: [{ action: 'c2pa.created', digitalSourceType: `${IPTC}${sourceType}` }] });
  const openCvResave = (bytes: Buffer, name: string): Buffer | null => {
    if (!python) return null;
    const input = join(dir, `${name}.in.png`);
    const output = join(dir, `${name}.cv.jpg`);
    writeFileSync(input, bytes);
    execFileSync(PYTHON, ['-c', 'import cv2,sys; cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1]), [cv2.IMWRITE_JPEG_QUALITY, 92])', input, output]);
    return readFileSync(output);
  };

  const samples: Sample[] = [];
  const add = (group: string, name: string, bytes: Buffer | null, truth: Truth, expected: DetectionVerdict): void => {
    if (bytes) samples.push({ group, name, bytes, truth, expected });
  };
  try {
    const photos: Array<{ name: string; bytes: Buffer }> = [];
    for (const name of readdirSync(PHOTOS).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort()) {
      const original = readFileSync(join(PHOTOS, name));
      const bytes = name.startsWith('kite') ? await sharp(original).resize(1280).jpeg({ quality: 92 }).toBuffer() : original;
      const meta = await sharp(bytes).metadata();
      if ((meta.channels ?? 1) >= 3 && !['text.png', 'page.png'].includes(name)) photos.push({ name, bytes });
    }
    for (const { name, bytes } of photos) {
      const png = await sharp(bytes).png().toBuffer();
      const jpg = await sharp(bytes).jpeg({ quality: 92 }).toBuffer();
      // Captured photographs: nothing to read, or only unsigned claims; a trusted capture manifest.
      add('photo as it is', name, bytes, 'captured', 'cannot_be_determined');
      add('camera EXIF (ExifTool: Canon EOS R6)', name, await tagged('cam.jpg', jpg, { Make: 'Canon', Model: 'Canon EOS R6', Software: 'Canon EOS R6 Firmware 1.8.1' }), 'captured', 'cannot_be_determined');
      add('Software = Adobe Photoshop (ExifTool)', name, await tagged('ps.jpg', jpg, { Software: 'Adobe Photoshop 25.0 (Windows)' }), 'captured', 'cannot_be_determined');
      add('portrait, EXIF orientation 6 (libvips)', name, await sharp(bytes).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer(), 'captured', 'cannot_be_determined');
      add('declared capture, XMP (libvips)', name, await sharp(bytes).withXmp(xmp('digitalCapture')).jpeg({ quality: 92 }).toBuffer(), 'captured', 'cannot_be_determined');
      add('re-saved WebP (libvips)', name, await sharp(bytes).webp({ quality: 80 }).toBuffer(), 'captured', 'cannot_be_determined');
      add('re-saved JPEG (OpenCV)', name, openCvResave(png, name), 'captured', 'cannot_be_determined');
      add('C2PA capture, trusted second signer', name, await sign(trusted, png, 'digitalCapture', 'Newsroom Camera'), 'captured', 'captured');
      add('C2PA capture, untrusted signer', name, await sign(untrusted, png, 'digitalCapture', 'Some Camera'), 'captured', 'cannot_be_determined');
      // Generated or AI-edited files, as they reach a newsroom.
      add('IPTC trainedAlgorithmicMedia (ExifTool)', name, await tagged('ai.jpg', jpg, { 'XMP-iptcExt:DigitalSourceType': `${IPTC}trainedAlgorithmicMedia` }), 'generated', 'cannot_be_determined');
      add('IPTC composite with AI (libvips)', name, await sharp(bytes).withXmp(xmp('compositeWithTrainedAlgorithmicMedia')).jpeg({ quality: 92 }).toBuffer(), 'edited_with_ai', 'cannot_be_determined');
      add('A1111 parameters chunk (ExifTool)', name, await tagged('sd.png', png, { 'PNG:Parameters': 'a harbour at dusk\nSteps: 30, Sampler: DPM++ 2M, CFG scale: 7, Seed: 42, Model: sdxl_base' }), 'generated', 'cannot_be_determined');
      add('declared AI, stripped and re-encoded (libvips)', name, await sharp(await tagged('ai2.jpg', jpg, { 'XMP-iptcExt:DigitalSourceType': `${IPTC}trainedAlgorithmicMedia` })).jpeg({ quality: 85 }).toBuffer(), 'generated', 'cannot_be_determined');
      add('C2PA AI, trusted second signer', name, await sign(trusted, png, 'trainedAlgorithmicMedia', 'Second Generator'), 'generated', 'generated');
      add('C2PA composite with AI, trusted second signer', name, await sign(trusted, png, 'compositeWithTrainedAlgorithmicMedia', 'Second Editor'), 'edited_with_ai', 'edited_with_ai');
      add('C2PA AI, untrusted signer', name, await sign(untrusted, png, 'trainedAlgorithmicMedia', 'Unknown Generator'), 'generated', 'cannot_be_determined');
      add('C2PA AI (trusted), re-encoded: manifest gone', name, await sharp(await sign(trusted, png, 'trainedAlgorithmicMedia', 'Second Generator')).png().toBuffer(), 'generated', 'cannot_be_determined');
    }
    if (python) {
      const inputs: string[] = [];
      for (const { name, bytes } of photos) {
        const file = join(dir, `${name.replace(/\.[^.]+$/, '')}.png`);
        writeFileSync(file, await sharp(bytes).png().toBuffer());
        inputs.push(file);
      }
      execFileSync(PYTHON, [join(__dirname, 'reference-marks.py'), join(dir, 'marks'), ...inputs], { stdio: 'ignore' });
      const manifest = JSON.parse(readFileSync(join(dir, 'marks', 'manifest.json'), 'utf8')) as { images: Array<{ file: string }> };
      for (const { file } of manifest.images) {
        const bytes = readFileSync(join(dir, 'marks', file));
        add('SD mark (reference encoder), lossless PNG', file, bytes, 'generated', 'generated');
        add('SD mark (reference encoder), then JPEG 90', file, await sharp(bytes).jpeg({ quality: 90 }).toBuffer(), 'generated', 'cannot_be_determined');
      }
    }

    const verdicts: DetectionVerdict[] = ['generated', 'edited_with_ai', 'captured', 'cannot_be_determined'];
    const confusion: Record<Truth, Record<DetectionVerdict, number>> = {
      generated: { generated: 0, edited_with_ai: 0, captured: 0, cannot_be_determined: 0 },
      edited_with_ai: { generated: 0, edited_with_ai: 0, captured: 0, cannot_be_determined: 0 },
      captured: { generated: 0, edited_with_ai: 0, captured: 0, cannot_be_determined: 0 },
    };
    const groups = new Map<string, { n: number; asExpected: number; verdicts: Record<DetectionVerdict, number>; max: number; min: number; expected: DetectionVerdict; truth: Truth }>();
    let wrongSide = 0;
    for (const sample of samples) {
      const result = await detector.detect(sample.bytes);
      confusion[sample.truth][result.verdict]++;
      const isAi = sample.truth !== 'captured';
      if ((isAi && result.verdict === 'captured') || (!isAi && (result.verdict === 'generated' || result.verdict === 'edited_with_ai'))) wrongSide++;
      const group = groups.get(sample.group) ?? { n: 0, asExpected: 0, verdicts: { generated: 0, edited_with_ai: 0, captured: 0, cannot_be_determined: 0 }, max: 0, min: 1, expected: sample.expected, truth: sample.truth };
      group.n++;
      group.verdicts[result.verdict]++;
      if (result.verdict === sample.expected) group.asExpected++;
      group.max = Math.max(group.max, result.probability);
      group.min = Math.min(group.min, result.probability);
      groups.set(sample.group, group);
    }

    // One 12-megapixel JPEG (the 4 MP corpus photo scaled to 4240×2832), best of 3.
    const big = await sharp(readFileSync(join(PHOTOS, 'kite-2560x1600.jpg'))).resize(4240, 2832, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    await detector.detect(big);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await detector.detect(big);
      times.push(performance.now() - start);
    }

    console.log(`${samples.length} files from ${photos.length} corpus photos${python ? '' : ' (Python OpenCV not installed: no OpenCV re-saves, no reference SD marks)'}\n`);
    console.log('| truth \\ verdict | generated | edited with AI | captured | cannot be determined |');
    console.log('|---|---|---|---|---|');
    for (const truth of Object.keys(confusion) as Truth[]) {
      console.log(`| ${truth.replace(/_/g, ' ')} (${Object.values(confusion[truth]).reduce((a, b) => a + b, 0)}) | ${verdicts.map((v) => confusion[truth][v]).join(' | ')} |`);
    }
    console.log(`\nWrong side (a captured file called AI, or an AI file called captured): ${wrongSide}\n`);
    console.log('| group | truth | n | verdict the evidence supports | as expected | probability min / max |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, g] of groups) {
      console.log(`| ${name} | ${g.truth.replace(/_/g, ' ')} | ${g.n} | ${g.expected.replace(/_/g, ' ')} | ${g.asExpected}/${g.n} | ${g.min.toFixed(3)} / ${g.max.toFixed(3)} |`);
    }
    console.log(`\n12 MP JPEG (4240×2832), one detection, best of 3: ${Math.round(Math.min(...times))} ms (all: ${times.map((t) => Math.round(t)).join(', ')} ms)`);
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'ai-detection.json'), JSON.stringify({ measuredAt: new Date().toISOString(), python, confusion, wrongSide, groups: Object.fromEntries(groups), twelveMegapixelMs: times }, null, 2));
    if (wrongSide > 0) process.exitCode = 1;
  } finally {
    await detector.close();
    await exiftool.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
