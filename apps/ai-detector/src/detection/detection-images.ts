import { DetectionResult, renderHeatmap, renderOverlay } from '@cp/ai-detection';
import { V2_PREVIEW_MAX_SIDE, V2_THUMBNAIL_BOX } from '@cp/contracts';
import sharp from 'sharp';

export interface RenderedImage {
  name: string;
  data: Buffer;
  contentType: string;
}

export interface RenderedImages {
  preview: RenderedImage | null;
  thumbnail: RenderedImage;
  heatmap: RenderedImage | null;
  overlay: RenderedImage | null;
}

function scaled(width: number, height: number): { width: number; height: number } {
  const factor = Math.min(1, V2_PREVIEW_MAX_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)) };
}

/** The images an aiDetection order shows: WebP preview (only when the input is larger), thumbnail, heatmap, overlay. */
export async function renderDetectionImages(
  input: Buffer,
  result: DetectionResult,
  options: { generateHeatmap: boolean; generateOverlay: boolean },
): Promise<RenderedImages> {
  const size = scaled(result.width, result.height);
  const needsPreview = Math.max(result.width, result.height) > V2_PREVIEW_MAX_SIDE;
  const webp = (data: Buffer, name: string): RenderedImage => ({ name, data, contentType: 'image/webp' });
  const preview = needsPreview
    ? webp(await sharp(input).rotate().resize(size.width, size.height, { fit: 'fill' }).webp({ quality: 85 }).toBuffer(), 'preview.webp')
    : null;
  const thumbnail = webp(
    await sharp(input).rotate().resize(V2_THUMBNAIL_BOX.width, V2_THUMBNAIL_BOX.height, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer(),
    'thumbnail.webp',
  );
  const regional = result.regional;
  const heatmap = options.generateHeatmap && regional
    ? webp(await renderHeatmap(regional, size.width, size.height).webp({ quality: 90 }).toBuffer(), 'heatmap.webp')
    : null;
  const overlay = options.generateOverlay && regional
    ? webp(await (await renderOverlay(input, regional, size.width, size.height)).webp({ quality: 85 }).toBuffer(), 'overlay.webp')
    : null;
  return { preview, thumbnail, heatmap, overlay };
}
