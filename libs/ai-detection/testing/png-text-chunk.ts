import { crc32 } from 'node:zlib';

/**
 * Test helper: adds a PNG `tEXt` chunk (keyword, Latin-1 text) before IEND, the way ComfyUI writes `prompt` and
 * `workflow` (ExifTool only writes the text keywords it predefines, such as `parameters`).
 */
export function withPngTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const iend = png.length - 12;
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') throw new Error('not a complete PNG');
  const body = Buffer.concat([Buffer.from('tEXt', 'latin1'), Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(body.length - 4, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body) >>> 0, body.length + 4);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}
