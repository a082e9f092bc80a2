/**
 * @jest-environment ./tools/jest/native-typed-arrays-environment.js
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeSdMark, syntheticPhoto, tinyOnnxModel } from '../testing';
import { AiDetector, DetectionInputRejected } from './ai-detector';
import { renderHeatmap, renderOverlay } from './heatmap';
import { SD_MARK_MESSAGES } from './sd-watermark/sd-watermark';

const photo = syntheticPhoto(384, 256, 3);
const png = (image: { data: Uint8Array; width: number; height: number }): Promise<Buffer> =>
  sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();

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
    const dir = await mkdtemp(join(tmpdir(), 'onnx-spec-'));
    const modelPath = join(dir, 'tiny.onnx');
    await writeFile(modelPath, tinyOnnxModel(16));
    const withModel = await AiDetector.create({
      maxPixels: 50_000_000,
      classifier: { modelPath, inputSize: 16, mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], weight: 1, grid: 2 },
    });
    try {
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
    } finally {
      await withModel.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
