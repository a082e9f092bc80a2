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
