/**
 * @jest-environment ./tools/jest/native-typed-arrays-environment.js
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeSdMark, syntheticPhoto, tinyOnnxModel } from '../testing';
import { AiDetector, DetectionInputRejected } from './ai-detector';
import { orientRegional, renderHeatmap, renderOverlay } from './heatmap';
import { SD_MARK_MESSAGES } from './sd-watermark/sd-watermark';
import { UNCALIBRATED_CLASSIFIER_MAX } from './weights';

const photo = syntheticPhoto(384, 256, 3);
const png = (image: { data: Uint8Array; width: number; height: number }): Promise<Buffer> =>
  sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();

/**
 * Runs `use` with a detector whose classifier is the tiny test model (16 px input, 2×2 patches), written to a
 * scratch folder that is removed afterwards with the detector closed.
 */
async function withTinyClassifier(
  normalisation: { mean: [number, number, number]; std: [number, number, number]; weight: number },
  use: (detector: AiDetector) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'onnx-spec-'));
  const modelPath = join(dir, 'tiny.onnx');
  await writeFile(modelPath, tinyOnnxModel(16));
  const detector = await AiDetector.create({ maxPixels: 50_000_000, classifier: { modelPath, inputSize: 16, grid: 2, ...normalisation } });
  try {
    await use(detector);
  } finally {
    await detector.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('AiDetector', () => {
  let detector: AiDetector;
  beforeAll(async () => {
    detector = await AiDetector.create({ maxPixels: 50_000_000 });
  });
  afterAll(() => detector.close());

  it('says "no evidence either way" for an unmarked photo, with no heatmap and no classifier', async () => {
    const result = await detector.detect(await png(photo));
    expect(result.probability).toBe(0.5);
    expect(result.category).toBe('uncertain_ai');
    expect(result.noEvidence).toBe(true);
    expect(result.verdict).toBe('cannot_be_determined');
    expect(result.statement).toBe('Cannot be determined: no provenance or generator evidence was found.');
    expect(result.signals).toEqual(['c2pa', 'metadata', 'sdWatermark']);
    expect(result.regional).toBeNull();
    expect(result.heatmapNote).toMatch(/file-level/);
    expect(result.evidence.find((e) => e.signal === 'sdWatermark')?.finding).toBe('sdWatermark.notFound');
  });

  it('finds an SDXL mark, reaches likely_ai and draws the regional evidence', async () => {
    const marked = encodeSdMark(photo, SD_MARK_MESSAGES[2].bits, { swapped: true, offset: 0.5 });
    const result = await detector.detect(await png(marked));
    expect(result.category).toBe('likely_ai');
    expect(result.evidence.find((e) => e.signal === 'sdWatermark')?.finding).toBe('sdWatermark.detected');
    expect(result.regional).not.toBeNull();
    const heat = await renderHeatmap(result.regional!, 64, 64).png().toBuffer();
    const overlay = await (await renderOverlay(await png(marked), result.regional!, 64, 64)).png().toBuffer();
    expect((await sharp(heat).metadata()).width).toBe(64);
    expect((await sharp(overlay).metadata()).height).toBe(64);
  });

  it('refuses input that is not an image with a reason', async () => {
    await expect(detector.detect(Buffer.from('not an image at all'))).rejects.toBeInstanceOf(DetectionInputRejected);
  });

  it('runs a configured ONNX model patch-wise and feeds its scores to the heatmap', async () => {
    await withTinyClassifier({ mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], weight: 1 }, async (withModel) => {
      // Left half white, right half black: the tiny model scores brightness.
      const half = Buffer.alloc(64 * 64 * 3);
      for (let y = 0; y < 64; y++) for (let x = 0; x < 32; x++) half.fill(255, (y * 64 + x) * 3, (y * 64 + x) * 3 + 3);
      const image = await sharp(half, { raw: { width: 64, height: 64, channels: 3 } }).png().toBuffer();
      const result = await withModel.detect(image);
      expect(result.signals).toContain('classifier');
      const values = [...result.regional!.values];
      expect(result.regional!.columns).toBe(2);
      expect(values[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 3);
      expect(values[1]).toBeCloseTo(1 / (1 + Math.exp(1)), 3);
      const classifier = result.evidence.find((e) => e.signal === 'classifier')!;
      expect(classifier.details.meanScore).toBeCloseTo(0.5, 3);
      expect(Math.abs(classifier.weight)).toBeLessThan(0.01);
    });
  });

  it('a portrait with EXIF orientation 5–8 goes through every signal upright: size as shown, classifier grid turned', async () => {
    await withTinyClassifier({ mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], weight: 1 }, async (withModel) => {
      // Stored 96×64, top half white: shown upright (orientation 6: turned 90° clockwise) it is 64×96, right half white.
      const stored = Buffer.alloc(96 * 64 * 3);
      stored.fill(255, 0, 96 * 32 * 3);
      for (const orientation of [5, 6, 7, 8]) {
        const jpeg = await sharp(stored, { raw: { width: 96, height: 64, channels: 3 } }).withMetadata({ orientation }).jpeg({ quality: 95 }).toBuffer();
        const result = await withModel.detect(jpeg);
        expect([result.width, result.height]).toEqual([64, 96]);
        const [topLeft, topRight] = result.regional!.values;
        // 6 and 7 put the stored top on the right; 5 and 8 on the left.
        expect(orientation === 6 || orientation === 7 ? topRight > topLeft : topLeft > topRight).toBe(true);
      }
    });
  });

  it('never lets an uncalibrated classifier decide alone, however sure the model is', async () => {
    // mean 0 / std 0.01: a white image normalises to +100, the sigmoid says 1.0 for every patch
    await withTinyClassifier({ mean: [0, 0, 0], std: [0.01, 0.01, 0.01], weight: 5 }, async (sure) => {
      const white = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } }).png().toBuffer();
      const result = await sure.detect(white);
      const classifier = result.evidence.find((e) => e.signal === 'classifier')!;
      expect(classifier.details.meanScore).toBeGreaterThan(0.99);
      expect(classifier.weight).toBe(UNCALIBRATED_CLASSIFIER_MAX);
      expect(result.category).toBe('uncertain_ai');
      expect(result.verdict).toBe('cannot_be_determined');
    });
  });
});

describe('orientRegional', () => {
  it('turns a stored grid the way EXIF orientations turn the image', () => {
    // 3 columns × 2 rows: 0 1 2 / 3 4 5
    const map = { signal: 'sdWatermark' as const, columns: 3, rows: 2, values: Float32Array.from([0, 1, 2, 3, 4, 5]) };
    expect(orientRegional(map, 1)).toBe(map);
    expect([...orientRegional(map, 2).values]).toEqual([2, 1, 0, 5, 4, 3]);
    expect([...orientRegional(map, 3).values]).toEqual([5, 4, 3, 2, 1, 0]);
    expect([...orientRegional(map, 4).values]).toEqual([3, 4, 5, 0, 1, 2]);
    const turned = orientRegional(map, 6);
    expect([turned.columns, turned.rows]).toEqual([2, 3]);
    expect([...turned.values]).toEqual([3, 0, 4, 1, 5, 2]);
    expect([...orientRegional(map, 8).values]).toEqual([2, 5, 1, 4, 0, 3]);
    expect([...orientRegional(map, 5).values]).toEqual([0, 3, 1, 4, 2, 5]);
    expect([...orientRegional(map, 7).values]).toEqual([5, 2, 4, 1, 3, 0]);
  });
});
