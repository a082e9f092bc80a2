/**
 * Test fixtures of the image engine: the committed files under libs/watermark/test-fixtures (see the README there,
 * regenerated from the shared corpus by make-fixtures.sh) and inputs built on the fly. Tests never read the corpus.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { mulberry32 } from './random';

export const FIXTURES = join(__dirname, '../../test-fixtures');

export const fixture = (path: string): Buffer => readFileSync(join(FIXTURES, path));

/** astronaut.png of the corpus (512x512 RGB), stored as a JPEG q95 and decoded here to PNG. */
export const astronautPng = (): Promise<Buffer> => sharp(fixture('photos/astronaut.jpg')).png().toBuffer();

/** A grayscale PNG of the small text scan (the corpus' text.png, committed as is). */
export const textPng = (): Buffer => fixture('photos/text.png');
/** Smooth content (foam, porcelain): 600 x 400 JPEG. */
export const coffeeJpg = (): Buffer => fixture('photos/coffee.jpg');

/** A PNG chunk: length, type, data, CRC-32 of type + data. */
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A "decompression bomb": a valid PNG header declaring width x height 8-bit RGB pixels with a tiny body. */
export function pngBomb(width = 30000, height = 30000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const firstRows = deflateSync(Buffer.alloc((width * 3 + 1) * 4));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', firstRows), chunk('IEND', Buffer.alloc(0))]);
}

/** One TIFF directory entry of `grayTiff`: the tag, its field type and its value (written inline). */
export interface TiffDimensionEntry {
  tag: 256 | 257;
  /** 3 SHORT, 4 LONG, 8 SSHORT, 9 SLONG. */
  type: 3 | 4 | 8 | 9;
  value: number;
}

/**
 * A single-page 8-bit gray TIFF of `width` x `height` black pixels, Deflate-compressed, every strip sharing one
 * compressed block: a few KB whatever the size. `dimensions` replaces the ImageWidth/ImageLength entries (their
 * field types, or a tag repeated), as a hostile file may write them; the pixel data always has the real size.
 */
export function grayTiff(width: number, height: number, dimensions?: TiffDimensionEntry[]): Buffer {
  const rowsPerStrip = Math.max(1, Math.min(height, Math.floor((1 << 20) / width)));
  const strips = Math.ceil(height / rowsPerStrip);
  const block = deflateSync(Buffer.alloc(width * rowsPerStrip));
  const entries: Array<[number, number, number, number | 'offsets' | 'counts']> = [
    ...(dimensions ?? [{ tag: 256, type: 4, value: width }, { tag: 257, type: 4, value: height }]).map(({ tag, type, value }): [number, number, number, number] => [tag, type, 1, value]),
    [258, 3, 1, 8],
    [259, 3, 1, 8],
    [262, 3, 1, 1],
    [273, 4, strips, 'offsets'],
    [277, 3, 1, 1],
    [278, 4, 1, rowsPerStrip],
    [279, 4, strips, 'counts'],
  ];
  const ifdAt = 8;
  const offsetsAt = ifdAt + 2 + entries.length * 12 + 4;
  const countsAt = offsetsAt + strips * 4;
  const dataAt = countsAt + strips * 4;
  const out = Buffer.alloc(dataAt + block.length);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(ifdAt, 4);
  out.writeUInt16LE(entries.length, ifdAt);
  entries.forEach(([tag, type, count, value], i) => {
    const at = ifdAt + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    if (value === 'offsets') out.writeUInt32LE(strips === 1 ? dataAt : offsetsAt, at + 8);
    else if (value === 'counts') out.writeUInt32LE(strips === 1 ? block.length : countsAt, at + 8);
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else if (type === 8) out.writeInt16LE(value, at + 8);
    else if (type === 9) out.writeInt32LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  for (let s = 0; s < strips; s++) {
    out.writeUInt32LE(dataAt, offsetsAt + s * 4);
    out.writeUInt32LE(block.length, countsAt + s * 4);
  }
  block.copy(out, dataAt);
  return out;
}

/**
 * A deep-field-like star image (issue 34): black sky with faint noise, sparse stars of every brightness drawn as
 * Gaussian points (σ 0.6–2.2 px), a few bright ones with halos and two faint galaxies. Deterministic (mulberry32).
 */
export function starFieldPng(width = 640, height = 480, seed = 7): Promise<Buffer> {
  const rand = mulberry32(seed);
  const f = new Float32Array(width * height * 3);
  for (let i = 0; i < f.length; i += 3) {
    const n = 2 + rand() * 3;
    f[i] = n;
    f[i + 1] = n;
    f[i + 2] = n + 1;
  }
  const blob = (cx: number, cy: number, sx: number, sy: number, peak: number, tint: [number, number, number]): void => {
    const r = Math.ceil(3.5 * Math.max(sx, sy));
    for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(height - 1, Math.ceil(cy + r)); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(width - 1, Math.ceil(cx + r)); x++) {
        const g = peak * Math.exp(-(((x - cx) / sx) ** 2 + ((y - cy) / sy) ** 2) / 2);
        for (let c = 0; c < 3; c++) f[(y * width + x) * 3 + c] += g * tint[c];
      }
    }
  };
  const stars = Math.round((width * height) / 900);
  for (let s = 0; s < stars; s++) {
    const sigma = 0.6 + 1.6 * rand() ** 3;
    const peak = 30 + 225 * rand() ** 4;
    const warm = rand();
    blob(rand() * width, rand() * height, sigma, sigma, peak, [0.9 + 0.1 * warm, 0.95, 1 - 0.2 * warm]);
  }
  for (let s = 0; s < 4; s++) {
    const cx = rand() * width;
    const cy = rand() * height;
    blob(cx, cy, 1.8, 1.8, 255, [1, 1, 1]);
    blob(cx, cy, 6, 6, 25, [0.9, 0.9, 1]);
  }
  for (let s = 0; s < 2; s++) blob(rand() * width, rand() * height, 8 + 10 * rand(), 4 + 4 * rand(), 18 + 20 * rand(), [1, 0.9, 0.8]);
  const out = Buffer.alloc(f.length);
  for (let i = 0; i < f.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(f[i])));
  return sharp(out, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/**
 * A clear-sky-like picture (issue 34): blue with faint cloud-like value noise (octaves of 160 to 20 px) and fine noise
 * of about 2 levels, saved as JPEG 90. Small crops of it have little structure to register on. Deterministic.
 */
export function skyJpeg(width = 1280, height = 800, seed = 5): Promise<Buffer> {
  const rand = mulberry32(seed);
  const f = new Float32Array(width * height);
  for (const [cell, amp] of [[160, 14], [80, 8], [40, 5], [20, 3]] as const) {
    const gw = Math.ceil(width / cell) + 2;
    const gh = Math.ceil(height / cell) + 2;
    const g = Float32Array.from({ length: gw * gh }, () => rand() * 2 - 1);
    for (let y = 0; y < height; y++) {
      const iy = Math.floor(y / cell);
      const ty = y / cell - iy;
      for (let x = 0; x < width; x++) {
        const ix = Math.floor(x / cell);
        const tx = x / cell - ix;
        const a = g[iy * gw + ix] * (1 - tx) + g[iy * gw + ix + 1] * tx;
        const b = g[(iy + 1) * gw + ix] * (1 - tx) + g[(iy + 1) * gw + ix + 1] * tx;
        f[y * width + x] += amp * (a * (1 - ty) + b * ty);
      }
    }
  }
  const out = Buffer.alloc(width * height * 3);
  for (let k = 0; k < width * height; k++) {
    const v = f[k] + (rand() + rand() + rand() - 1.5) * 4;
    out[k * 3] = Math.max(0, Math.min(255, Math.round(40 + v)));
    out[k * 3 + 1] = Math.max(0, Math.min(255, Math.round(110 + v)));
    out[k * 3 + 2] = Math.max(0, Math.min(255, Math.round(190 + v)));
  }
  return sharp(out, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}
