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

/** The heatmap blended over the image (45% heatmap), at the image's size. */
export async function renderOverlay(image: Buffer, map: RegionalEvidence, width: number, height: number): Promise<Sharp> {
  const heat = await renderHeatmap(map, width, height).ensureAlpha(0.45).png().toBuffer();
  const base = await sharp(image).removeAlpha().toColourspace('srgb').resize(width, height, { fit: 'fill' }).png().toBuffer();
  return sharp(base).composite([{ input: heat, blend: 'over' }]);
}
