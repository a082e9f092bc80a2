import { BmpHeader, checkBmpSupported, parseBmpHeader } from './format';
import { WatermarkError, WatermarkErrorCode } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** A decoded BMP: gray (1 channel) or RGB (3 channels), 8 bits per sample, top-down rows. */
export interface BmpImage {
  header: BmpHeader;
  width: number;
  height: number;
  channels: 1 | 3;
  data: Uint8Array;
}

/** Strict reader: uncompressed 24-bit RGB, 1-bit (palette applied as gray) and 8-bit all-gray palette. */
export function readBmp(buf: Buffer): BmpImage {
  const h = parseBmpHeader(buf);
  checkBmpSupported(h);
  const { width, height, bpp } = h;
  const stride = math.ceil((width * bpp) / 32) * 4;
  if (h.dataOffset + stride * height > buf.length) throw new WatermarkError(WatermarkErrorCode.CORRUPT_IMAGE, 'truncated BMP pixel data');
  const channels: 1 | 3 = bpp === 24 ? 3 : 1;
  const data = new Uint8Array(width * height * channels);
  const gray = new Uint8Array(256);
  for (let i = 0; i < h.palette.length / 3; i++) {
    gray[i] = math.round(0.299 * h.palette[i * 3] + 0.587 * h.palette[i * 3 + 1] + 0.114 * h.palette[i * 3 + 2]);
  }
  for (let y = 0; y < height; y++) {
    const row = h.dataOffset + (h.topDown ? y : height - 1 - y) * stride;
    const out = y * width * channels;
    if (bpp === 24) {
      for (let x = 0; x < width; x++) {
        data[out + x * 3] = buf[row + x * 3 + 2];
        data[out + x * 3 + 1] = buf[row + x * 3 + 1];
        data[out + x * 3 + 2] = buf[row + x * 3];
      }
    } else if (bpp === 8) {
      for (let x = 0; x < width; x++) data[out + x] = gray[buf[row + x]];
    } else {
      for (let x = 0; x < width; x++) data[out + x] = gray[(buf[row + (x >> 3)] >> (7 - (x & 7))) & 1];
    }
  }
  return { header: h, width, height, channels, data };
}

/**
 * Writes a BMP of the same kind as `like`: 24-bit RGB, 8-bit gray palette, or 1-bit with the original
 * palette (pixels >= 128 map to the brighter palette entry). Row order (bottom-up/top-down) is kept.
 */
export function writeBmp(like: BmpHeader, width: number, height: number, channels: 1 | 3, data: Uint8Array): Buffer {
  const bpp = like.bpp;
  const stride = math.ceil((width * bpp) / 32) * 4;
  const paletteEntries = bpp === 8 ? 256 : bpp === 1 ? 2 : 0;
  const offset = 14 + 40 + paletteEntries * 4;
  const size = offset + stride * height;
  const out = Buffer.alloc(size);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(size, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(like.topDown ? -height : height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(bpp, 28);
  out.writeUInt32LE(0, 30);
  out.writeUInt32LE(stride * height, 34);
  out.writeInt32LE(like.xPpm, 38);
  out.writeInt32LE(like.yPpm, 42);
  out.writeUInt32LE(paletteEntries, 46);
  out.writeUInt32LE(0, 50);
  let brightIndex = 1;
  if (bpp === 8) {
    for (let i = 0; i < 256; i++) out.writeUInt32LE(i * 0x010101, 54 + i * 4);
  } else if (bpp === 1) {
    const pal = like.palette.length >= 6 ? like.palette : Uint8Array.from([0, 0, 0, 255, 255, 255]);
    for (let i = 0; i < 2; i++) {
      out[54 + i * 4] = pal[i * 3 + 2];
      out[54 + i * 4 + 1] = pal[i * 3 + 1];
      out[54 + i * 4 + 2] = pal[i * 3];
    }
    brightIndex = pal[3] + pal[4] + pal[5] >= pal[0] + pal[1] + pal[2] ? 1 : 0;
  }
  for (let y = 0; y < height; y++) {
    const row = offset + (like.topDown ? y : height - 1 - y) * stride;
    const src = y * width * channels;
    if (bpp === 24) {
      for (let x = 0; x < width; x++) {
        const s = src + x * channels;
        const r = data[s];
        const g = channels === 3 ? data[s + 1] : r;
        const b = channels === 3 ? data[s + 2] : r;
        out[row + x * 3] = b;
        out[row + x * 3 + 1] = g;
        out[row + x * 3 + 2] = r;
      }
    } else if (bpp === 8) {
      for (let x = 0; x < width; x++) out[row + x] = data[src + x * channels];
    } else {
      for (let x = 0; x < width; x++) {
        const bright = data[src + x * channels] >= 128;
        const bit = bright ? brightIndex : 1 - brightIndex;
        if (bit) out[row + (x >> 3)] |= 0x80 >> (x & 7);
      }
    }
  }
  return out;
}
