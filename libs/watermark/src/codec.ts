import sharp from 'sharp';

type SharpPipe = ReturnType<typeof sharp>;
import { readBmp, writeBmp } from './bmp';
import { checkPixels, HeaderInfo, parseBmpHeader, parseTiff, readHeader } from './format';
import { jpegFacts, transplantJpeg, transplantPng, transplantWebp } from './metadata';
import { ImageFormat, WatermarkError, WatermarkErrorCode } from './types';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

/** Decoded pixels, interleaved, in the stored orientation. */
export interface Raster {
  format: ImageFormat;
  width: number;
  height: number;
  /** Interleaved channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
  channels: number;
  /** Colour channels that carry the mark (1 or 3); alpha is never touched. */
  colorChannels: 1 | 3;
  /** 1-bit source: the output must stay bi-level. */
  bilevel: boolean;
  /** 16-bit samples (0..65535); otherwise 8-bit. */
  data: Uint8Array | Uint16Array;
}

export function isWatermarkError(e: unknown): e is WatermarkError {
  return e instanceof WatermarkError;
}

function wrapDecode(e: unknown): WatermarkError {
  if (isWatermarkError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new WatermarkError(WatermarkErrorCode.CORRUPT_IMAGE, `cannot decode image: ${msg.split('\n')[0]}`);
}

/** Header check (format sniffing, colour mode and pixel limit) before any decoding. */
export function checkInput(input: Buffer, maxPixels: number): HeaderInfo {
  const h = readHeader(input);
  checkPixels(h, maxPixels);
  return h;
}

function sharpIn(input: Buffer): SharpPipe {
  return sharp(input, { limitInputPixels: false, failOn: 'error', autoOrient: false });
}

export async function decodeRaster(input: Buffer, header: HeaderInfo): Promise<Raster> {
  try {
    if (header.format === 'bmp') {
      const b = readBmp(input);
      return { format: 'bmp', width: b.width, height: b.height, channels: b.channels, colorChannels: b.channels, bilevel: b.header.bpp === 1, data: b.data };
    }
    const meta = await sharpIn(input).metadata();
    const hasAlpha = meta.hasAlpha === true;
    const gray = meta.channels !== undefined && meta.channels - (hasAlpha ? 1 : 0) === 1 && meta.space !== 'cmyk';
    const deep = meta.depth === 'ushort' && header.format === 'png';
    let pipe = sharpIn(input);
    if (deep) pipe = pipe.keepIccProfile().toColourspace(gray ? 'grey16' : 'rgb16');
    else if (meta.space === 'cmyk') pipe = pipe.toColourspace('srgb');
    else pipe = pipe.keepIccProfile().toColourspace(gray ? 'b-w' : 'srgb');
    const { data, info } = await pipe.raw(deep ? { depth: 'ushort' } : {}).toBuffer({ resolveWithObject: true });
    const bilevel = header.format === 'tiff' && header.bitDepth === 1;
    const arr = deep ? new Uint16Array(data.buffer, data.byteOffset, data.length >> 1) : new Uint8Array(data.buffer, data.byteOffset, data.length);
    const colorChannels: 1 | 3 = info.channels <= 2 ? 1 : 3;
    return { format: header.format, width: info.width, height: info.height, channels: info.channels, colorChannels, bilevel, data: arr };
  } catch (e) {
    throw wrapDecode(e);
  }
}

/** Re-encodes in the input's format and kind, copying the input's metadata. */
export async function encodeRaster(input: Buffer, r: Raster, header: HeaderInfo): Promise<Buffer> {
  if (r.format === 'bmp') {
    const h = parseBmpHeader(input);
    return writeBmp(h, r.width, r.height, r.colorChannels, r.data as Uint8Array);
  }
  const deep = r.data instanceof Uint16Array;
  const raw = { width: r.width, height: r.height, channels: r.channels as 1 | 2 | 3 | 4 };
  let pipe = sharp(deep ? new Uint16Array(r.data) : Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw });
  if (deep) pipe = pipe.toColourspace(r.colorChannels === 1 ? 'grey16' : 'rgb16');
  switch (r.format) {
    case 'jpeg': {
      const f = jpegFacts(input);
      if (header.channels === 4) pipe = pipe.toColourspace('cmyk');
      const out = await pipe.jpeg({ quality: f.quality, chromaSubsampling: f.subsampling, progressive: f.progressive }).toBuffer();
      return transplantJpeg(input, out);
    }
    case 'png': {
      const out = await pipe.png({ compressionLevel: 6 }).toBuffer();
      return transplantPng(input, out);
    }
    case 'webp': {
      const lossless = input.indexOf('VP8L', 12, 'latin1') >= 0 && input.indexOf('VP8 ', 12, 'latin1') < 0;
      const out = await pipe.webp(lossless ? { lossless: true } : { quality: 90 }).toBuffer();
      return transplantWebp(input, out, r.width, r.height);
    }
    case 'tiff': {
      const t = parseTiff(input);
      const compression = t.compression === 5 ? 'lzw' : t.compression === 8 || t.compression === 32946 ? 'deflate' : t.compression === 32773 ? 'packbits' : t.compression === 7 ? 'jpeg' : t.compression === 4 ? 'ccittfax4' : 'none';
      if (r.bilevel) {
        return pipe.toColourspace('b-w').tiff({ compression: compression === 'ccittfax4' ? 'ccittfax4' : compression === 'jpeg' ? 'none' : compression, bitdepth: 1 }).toBuffer();
      }
      if (r.colorChannels === 1) pipe = pipe.toColourspace('b-w');
      return pipe.tiff({ compression: compression === 'ccittfax4' ? 'lzw' : compression }).toBuffer();
    }
  }
}

/** Luminance plane (float, 0..255) of an image, optionally resized to fit `maxSide`/scale. */
export interface LumaPlane {
  width: number;
  height: number;
  data: Float32Array;
  /** Full-resolution size before the optional reduction. */
  fullWidth: number;
  fullHeight: number;
}

export async function decodeLuma(input: Buffer, header: HeaderInfo, scale: number): Promise<LumaPlane> {
  try {
    const tw = math.max(1, math.round(header.width * scale));
    const th = math.max(1, math.round(header.height * scale));
    let pipe: SharpPipe;
    if (header.format === 'bmp') {
      const b = readBmp(input);
      pipe = sharp(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength), { raw: { width: b.width, height: b.height, channels: b.channels } });
    } else {
      pipe = sharpIn(input);
    }
    pipe = pipe.removeAlpha().toColourspace('b-w');
    if (scale !== 1) pipe = pipe.resize(tw, th, { fit: 'fill', kernel: 'cubic' });
    const { data, info } = await pipe.raw().toBuffer({ resolveWithObject: true });
    const out = new Float32Array(info.width * info.height);
    const ch = info.channels;
    for (let i = 0, j = 0; i < out.length; i++, j += ch) out[i] = data[j];
    return { width: info.width, height: info.height, data: out, fullWidth: header.width, fullHeight: header.height };
  } catch (e) {
    throw wrapDecode(e);
  }
}
