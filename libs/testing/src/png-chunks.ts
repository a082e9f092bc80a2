import { crc32 } from 'node:zlib';

/** One PNG chunk (length, type, data, CRC) by type. */
export function pngChunk(png: Buffer, type: string): Buffer {
  let offset = 8;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    if (png.toString('latin1', offset + 4, offset + 8) === type) {
      return png.subarray(offset, offset + 12 + length);
    }
    offset += 12 + length;
  }
  throw new Error(`no ${type} chunk`);
}

/** Adds a chunk of any type and data before IEND (a compressed text, an ICC profile, a hostile one). */
export function withPngChunk(png: Buffer, type: string, data: Buffer): Buffer {
  const iend = png.length - 12;
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') throw new Error('not a complete PNG');
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(data.length, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body) >>> 0, body.length + 4);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}
