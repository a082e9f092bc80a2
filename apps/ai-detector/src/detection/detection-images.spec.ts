import { DetectionResult } from '@cp/ai-detection';
import sharp from 'sharp';
import { renderDetectionImages } from './detection-images';

/** Stored landscape, top half white, tagged with an EXIF orientation: shown upright as a portrait. */
async function taggedPortrait(storedWidth: number, storedHeight: number, orientation: number): Promise<Buffer> {
  const pixels = Buffer.alloc(storedWidth * storedHeight * 3);
  pixels.fill(255, 0, storedWidth * Math.floor(storedHeight / 2) * 3);
  return sharp(pixels, { raw: { width: storedWidth, height: storedHeight, channels: 3 } }).withMetadata({ orientation }).jpeg({ quality: 90 }).toBuffer();
}

function result(width: number, height: number): DetectionResult {
  return {
    probability: 0.5, logOdds: 0, category: 'uncertain_ai', verdict: 'cannot_be_determined', noEvidence: true, statement: 's',
    evidence: [], signals: ['c2pa', 'metadata', 'sdWatermark'], width, height, format: 'jpeg',
    // 2×2 grid, upright: the right column towards AI
    regional: { signal: 'classifier', columns: 2, rows: 2, values: Float32Array.from([0.5, 1, 0.5, 1]) },
    heatmapNote: null,
  };
}

const brightness = async (image: Buffer, x: number, y: number): Promise<number> => {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return (data[i] + data[i + 1] + data[i + 2]) / 3;
};

describe('renderDetectionImages on a portrait photo above 1600 px (EXIF orientation 6)', () => {
  it('preview, thumbnail, heatmap and overlay are all upright portraits, not stretched', async () => {
    // stored 2400×1600 → shown 1600×2400 → preview 1067×1600
    const input = await taggedPortrait(2400, 1600, 6);
    const images = await renderDetectionImages(input, result(1600, 2400), { generateHeatmap: true, generateOverlay: true });
    const size = async (data: Buffer | undefined) => {
      const meta = await sharp(data).metadata();
      return [meta.width, meta.height];
    };
    expect(await size(images.preview?.data)).toEqual([1067, 1600]);
    expect(await size(images.heatmap?.data)).toEqual([1067, 1600]);
    expect(await size(images.overlay?.data)).toEqual([1067, 1600]);
    const [thumbWidth, thumbHeight] = await size(images.thumbnail.data);
    expect(thumbHeight).toBe(400);
    expect(thumbWidth).toBe(267);
    // Upright: the stored top half (white) is on the right of the preview and of the overlay.
    expect(await brightness(images.preview!.data, 900, 800)).toBeGreaterThan(200);
    expect(await brightness(images.preview!.data, 150, 800)).toBeLessThan(60);
    expect(await brightness(images.overlay!.data, 900, 1200)).toBeGreaterThan(await brightness(images.overlay!.data, 150, 1200));
  });
});
