import sharp, { Sharp } from 'sharp';
import { RegionalEvidence } from './evidence';

/** Cells of all regional signals averaged on the finest grid among them (nearest cell for the coarser ones). */
export function combineRegional(maps: readonly RegionalEvidence[]): RegionalEvidence | null {
  if (maps.length === 0) return null;
  const columns = Math.max(...maps.map((m) => m.columns));
  const rows = Math.max(...maps.map((m) => m.rows));
  const values = new Float32Array(columns * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      let sum = 0;
      for (const map of maps) {
        sum += map.values[Math.floor((r * map.rows) / rows) * map.columns + Math.floor((c * map.columns) / columns)];
      }
      values[r * columns + c] = sum / maps.length;
    }
  }
  return { signal: maps[0].signal, columns, rows, values };
}

/**
 * A grid read from the pixels as stored, turned upright by the EXIF orientation (1–8), so the heatmap lies over the
 * image as it is shown. Orientations 5–8 swap columns and rows.
 */
export function orientRegional(map: RegionalEvidence, orientation: number | undefined): RegionalEvidence {
  const o = orientation && orientation >= 2 && orientation <= 8 ? orientation : 1;
  if (o === 1) return map;
  const { columns: w, rows: h } = map;
  const swapped = o >= 5;
  const columns = swapped ? h : w;
  const rows = swapped ? w : h;
  const values = new Float32Array(map.values.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [ox, oy] =
        o === 2 ? [w - 1 - x, y]
        : o === 3 ? [w - 1 - x, h - 1 - y]
        : o === 4 ? [x, h - 1 - y]
        : o === 5 ? [y, x]
        : o === 6 ? [h - 1 - y, x]
        : o === 7 ? [h - 1 - y, w - 1 - x]
        : [y, w - 1 - x];
      values[oy * columns + ox] = map.values[y * w + x];
    }
  }
  return { ...map, columns, rows, values };
}

/** Colour of a score: blue (0, towards a captured image) through white (0.5, no lean) to red (1, towards AI). */
export function scoreColour(score: number): [number, number, number] {
  const s = Math.min(1, Math.max(0, score));
  if (s < 0.5) {
    const t = s / 0.5;
    return [Math.round(40 + 215 * t), Math.round(90 + 165 * t), 255];
  }
  const t = (s - 0.5) / 0.5;
  return [255, Math.round(255 - 215 * t), Math.round(255 - 215 * t)];
}

/** The colour map of a grid, scaled (nearest cell, so cells stay visible as the regions they are) to width × height. */
export function renderHeatmap(map: RegionalEvidence, width: number, height: number): Sharp {
  const pixels = Buffer.alloc(map.columns * map.rows * 3);
  for (let i = 0; i < map.values.length; i++) {
    pixels.set(scoreColour(map.values[i]), i * 3);
  }
  return sharp(pixels, { raw: { width: map.columns, height: map.rows, channels: 3 } })
    .resize(width, height, { kernel: 'nearest', fit: 'fill' });
}

/**
 * The heatmap blended over the image (45% heatmap), at the size of the image as shown (`width` × `height` upright:
 * the image is turned by its EXIF orientation first, as the grid was).
 */
export async function renderOverlay(image: Buffer, map: RegionalEvidence, width: number, height: number): Promise<Sharp> {
  const heat = await renderHeatmap(map, width, height).ensureAlpha(0.45).png().toBuffer();
  const base = await sharp(image).rotate().removeAlpha().toColourspace('srgb').resize(width, height, { fit: 'fill' }).png().toBuffer();
  return sharp(base).composite([{ input: heat, blend: 'over' }]);
}
