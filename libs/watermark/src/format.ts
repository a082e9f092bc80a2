import { ImageFormat, WatermarkError, WatermarkErrorCode } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Header facts read without decoding pixel data. */
export interface HeaderInfo {
  format: ImageFormat;
  width: number;
  height: number;
  /** Channels as stored (gray = 1, RGB = 3, with alpha = +1, CMYK = 4). */
  channels: number;
  /** Bits per sample when known from the header (1, 8, 16). */
  bitDepth: number;
}

const corrupt = (msg: string): WatermarkError => new WatermarkError(WatermarkErrorCode.CORRUPT_IMAGE, msg);
const colorMode = (msg: string): WatermarkError => new WatermarkError(WatermarkErrorCode.UNSUPPORTED_COLOR_MODE, msg);

/** Detects the container by its magic bytes (never by the file name). */
export function sniffFormat(buf: Buffer): ImageFormat {
  if (buf.length === 0) throw corrupt('empty input');
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47 && buf.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (buf.length >= 2 && buf[0] === 0x42 && buf[1] === 0x4d) return 'bmp';
  if (buf.length >= 4 && ((buf[0] === 0x49 && buf[1] === 0x49 && buf[2] === 42 && buf[3] === 0) || (buf[0] === 0x4d && buf[1] === 0x4d && buf[2] === 0 && buf[3] === 42))) {
    return 'tiff';
  }
  throw new WatermarkError(WatermarkErrorCode.UNSUPPORTED_FORMAT, 'not a JPEG, PNG, WebP, BMP or TIFF image');
}

function jpegHeader(buf: Buffer): HeaderInfo {
  let p = 2;
  while (p + 4 <= buf.length) {
    if (buf[p] !== 0xff) throw corrupt('bad JPEG marker');
    const marker = buf[p + 1];
    if (marker === 0xff) {
      p += 1;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    const len = buf.readUInt16BE(p + 2);
    if (len < 2 || p + 2 + len > buf.length) throw corrupt('truncated JPEG header');
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      const bitDepth = buf[p + 4];
      const height = buf.readUInt16BE(p + 5);
      const width = buf.readUInt16BE(p + 7);
      const channels = buf[p + 9];
      if (width === 0 || height === 0) throw corrupt('JPEG without dimensions');
      return { format: 'jpeg', width, height, channels, bitDepth };
    }
    if (marker === 0xda || marker === 0xd9) break;
    p += 2 + len;
  }
  throw corrupt('JPEG without frame header');
}

function pngHeader(buf: Buffer): HeaderInfo {
  if (buf.length < 33 || buf.toString('latin1', 12, 16) !== 'IHDR') throw corrupt('truncated PNG header');
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const bitDepth = buf[24];
  const colorType = buf[25];
  const channels = colorType === 0 ? 1 : colorType === 2 ? 3 : colorType === 3 ? 3 : colorType === 4 ? 2 : colorType === 6 ? 4 : 0;
  if (width === 0 || height === 0 || channels === 0) throw corrupt('invalid PNG header');
  return { format: 'png', width, height, channels, bitDepth };
}

function webpHeader(buf: Buffer): HeaderInfo {
  if (buf.length < 30) throw corrupt('truncated WebP header');
  const kind = buf.toString('latin1', 12, 16);
  if (kind === 'VP8X') {
    const flags = buf[20];
    const width = 1 + buf.readUIntLE(24, 3);
    const height = 1 + buf.readUIntLE(27, 3);
    return { format: 'webp', width, height, channels: flags & 0x10 ? 4 : 3, bitDepth: 8 };
  }
  if (kind === 'VP8 ') {
    if (buf[23] !== 0x9d || buf[24] !== 0x01 || buf[25] !== 0x2a) throw corrupt('bad VP8 header');
    return { format: 'webp', width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff, channels: 3, bitDepth: 8 };
  }
  if (kind === 'VP8L') {
    if (buf[20] !== 0x2f) throw corrupt('bad VP8L header');
    const b = buf.readUInt32LE(21);
    const width = (b & 0x3fff) + 1;
    const height = ((b >>> 14) & 0x3fff) + 1;
    const alpha = (b >>> 28) & 1;
    return { format: 'webp', width, height, channels: alpha ? 4 : 3, bitDepth: 8 };
  }
  throw corrupt('unknown WebP chunk');
}

/** Parsed BMP header (only what the strict reader needs). */
export interface BmpHeader {
  dataOffset: number;
  width: number;
  height: number;
  topDown: boolean;
  bpp: number;
  compression: number;
  palette: Uint8Array; // RGB triplets
  xPpm: number;
  yPpm: number;
}

export function parseBmpHeader(buf: Buffer): BmpHeader {
  if (buf.length < 26) throw corrupt('truncated BMP header');
  const dataOffset = buf.readUInt32LE(10);
  const hdrSize = buf.readUInt32LE(14);
  if (hdrSize < 40 || 14 + hdrSize > buf.length) {
    if (hdrSize === 12) throw colorMode('OS/2 BMP headers are not supported');
    throw corrupt('truncated or unknown BMP header');
  }
  const width = buf.readInt32LE(18);
  const rawHeight = buf.readInt32LE(22);
  const bpp = buf.readUInt16LE(28);
  const compression = buf.readUInt32LE(30);
  const xPpm = buf.readInt32LE(38);
  const yPpm = buf.readInt32LE(42);
  let clrUsed = buf.readUInt32LE(46);
  if (width <= 0 || rawHeight === 0) throw corrupt('invalid BMP dimensions');
  let palette = new Uint8Array(0);
  if (bpp <= 8) {
    if (clrUsed === 0) clrUsed = 1 << bpp;
    const start = 14 + hdrSize;
    if (clrUsed > 256 || start + clrUsed * 4 > buf.length) throw corrupt('truncated BMP palette');
    palette = new Uint8Array(clrUsed * 3);
    for (let i = 0; i < clrUsed; i++) {
      palette[i * 3] = buf[start + i * 4 + 2];
      palette[i * 3 + 1] = buf[start + i * 4 + 1];
      palette[i * 3 + 2] = buf[start + i * 4];
    }
  }
  return { dataOffset, width, height: math.abs(rawHeight), topDown: rawHeight < 0, bpp, compression, palette, xPpm, yPpm };
}

/** Checks the BMP is one of the supported kinds: uncompressed 24-bit RGB, 1-bit, 8-bit with an all-gray palette. */
export function checkBmpSupported(h: BmpHeader): void {
  if (h.compression !== 0) throw colorMode(`compressed BMP (compression ${h.compression}) is not supported`);
  if (h.bpp === 24 || h.bpp === 1) return;
  if (h.bpp === 8) {
    for (let i = 0; i < h.palette.length; i += 3) {
      if (h.palette[i] !== h.palette[i + 1] || h.palette[i] !== h.palette[i + 2]) throw colorMode('8-bit BMP with a colour palette is not supported');
    }
    return;
  }
  throw colorMode(`${h.bpp}-bit BMP is not supported`);
}

/** Parsed facts about the first TIFF page. */
export interface TiffFacts {
  width: number;
  height: number;
  bitsPerSample: number[];
  samplesPerPixel: number;
  photometric: number;
  compression: number;
  extraSamples: number;
  pages: number;
  orientation: number;
}

/** Bytes of one value of each TIFF field type (1 BYTE … 12 DOUBLE, 16 LONG8, 17 SLONG8, 18 IFD8). */
const TIFF_TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };

export function parseTiff(buf: Buffer): TiffFacts {
  const le = buf[0] === 0x49;
  const u16 = (o: number): number => (le ? buf.readUInt16LE(o) : buf.readUInt16BE(o));
  const u32 = (o: number): number => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  if (buf.length < 8) throw corrupt('truncated TIFF header');
  let ifd = u32(4);
  if (ifd + 2 > buf.length) throw corrupt('truncated TIFF');
  const n = u16(ifd);
  if (ifd + 2 + n * 12 + 4 > buf.length) throw corrupt('truncated TIFF directory');
  const facts: TiffFacts = { width: 0, height: 0, bitsPerSample: [1], samplesPerPixel: 1, photometric: -1, compression: 1, extraSamples: 0, pages: 1, orientation: 1 };
  // libtiff reads the first entry of a tag and ignores any repeat of it: so does this reader, or a file could show
  // the pixel check one size and libvips another.
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    const tag = u16(e);
    if (seen.has(tag)) continue;
    seen.add(tag);
    const type = u16(e + 2);
    const count = u32(e + 4);
    const typeSize = TIFF_TYPE_SIZES[type] ?? 1;
    const size = typeSize * count;
    const dataAt = size <= 4 ? e + 8 : u32(e + 8);
    // Every integer type, signed ones included, is a number to libtiff (a SSHORT or SLONG width is that width, not
    // its first byte); a value of any other type, or a negative one, makes it refuse the directory.
    const val = (k: number): number => {
      const at = dataAt + k * typeSize;
      if (at + typeSize > buf.length) throw corrupt('truncated TIFF tag');
      let v: number;
      switch (type) {
        case 1: v = buf[at]; break;
        case 3: v = u16(at); break;
        case 4: v = u32(at); break;
        case 6: v = buf.readInt8(at); break;
        case 8: v = le ? buf.readInt16LE(at) : buf.readInt16BE(at); break;
        case 9: v = le ? buf.readInt32LE(at) : buf.readInt32BE(at); break;
        case 16: v = Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)); break;
        case 17: v = Number(le ? buf.readBigInt64LE(at) : buf.readBigInt64BE(at)); break;
        default: throw corrupt(`TIFF tag ${tag} has the non-integer type ${type}`);
      }
      if (v < 0) throw corrupt(`TIFF tag ${tag} has a negative value`);
      return v;
    };
    switch (tag) {
      case 256: facts.width = val(0); break;
      case 257: facts.height = val(0); break;
      case 258: facts.bitsPerSample = Array.from({ length: math.min(count, 8) }, (_, k) => val(k)); break;
      case 259: facts.compression = val(0); break;
      case 262: facts.photometric = val(0); break;
      case 274: facts.orientation = val(0); break;
      case 277: facts.samplesPerPixel = val(0); break;
      case 338: facts.extraSamples = count; break;
      default: break;
    }
  }
  const next = u32(ifd + 2 + n * 12);
  if (next !== 0) facts.pages = 2;
  ifd = next;
  if (facts.width === 0 || facts.height === 0) throw corrupt('TIFF without dimensions');
  return facts;
}

/** Single-page 8-bit RGB, 1-bit or 8-bit grayscale, without alpha. */
export function checkTiffSupported(t: TiffFacts): void {
  if (t.pages > 1) throw colorMode('multi-page TIFF is not supported');
  if (t.extraSamples > 0) throw colorMode('TIFF with alpha/extra samples is not supported');
  const bps = t.bitsPerSample;
  const all = (v: number): boolean => bps.every((b) => b === v);
  if ((t.photometric === 0 || t.photometric === 1) && t.samplesPerPixel === 1 && (all(1) || all(8))) return;
  if ((t.photometric === 2 || t.photometric === 6) && t.samplesPerPixel === 3 && all(8)) return;
  if (t.photometric === 3) throw colorMode('palette TIFF is not supported');
  if (t.photometric === 5) throw colorMode('CMYK TIFF is not supported');
  throw colorMode(`TIFF with ${t.samplesPerPixel} samples of ${bps.join('/')} bits (photometric ${t.photometric}) is not supported`);
}

/** Reads the header only; validates the colour mode for BMP/TIFF. Never decodes pixels. */
export function readHeader(buf: Buffer): HeaderInfo {
  const format = sniffFormat(buf);
  switch (format) {
    case 'jpeg': return jpegHeader(buf);
    case 'png': return pngHeader(buf);
    case 'webp': return webpHeader(buf);
    case 'bmp': {
      const h = parseBmpHeader(buf);
      checkBmpSupported(h);
      return { format, width: h.width, height: h.height, channels: h.bpp === 24 ? 3 : 1, bitDepth: h.bpp === 24 ? 8 : h.bpp };
    }
    case 'tiff': {
      const t = parseTiff(buf);
      checkTiffSupported(t);
      return { format, width: t.width, height: t.height, channels: t.samplesPerPixel, bitDepth: t.bitsPerSample[0] ?? 8 };
    }
  }
}

export function checkPixels(h: { width: number; height: number }, maxPixels: number): void {
  if (h.width * h.height > maxPixels) {
    throw new WatermarkError(WatermarkErrorCode.TOO_MANY_PIXELS, `image has ${h.width}x${h.height} pixels, above the limit of ${maxPixels}`);
  }
}
