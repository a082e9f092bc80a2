/**
 * Test fixtures of the image engine: the committed files under libs/watermark/test-fixtures (see the README there,
 * regenerated from the shared corpus by make-fixtures.sh) and inputs built on the fly. Tests never read the corpus.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export const FIXTURES = join(__dirname, '../../test-fixtures');

export const fixture = (path: string): Buffer => readFileSync(join(FIXTURES, path));

/** astronaut.png of the corpus (512x512 RGB), stored as a JPEG q95 and decoded here to PNG. */
export const astronautPng = (): Promise<Buffer> => sharp(fixture('photos/astronaut.jpg')).png().toBuffer();

/** A grayscale PNG of the small text scan (the corpus' text.png, committed as is). */
export const textPng = (): Buffer => fixture('photos/text.png');

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
