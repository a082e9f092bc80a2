import sharp, { type OutputInfo } from 'sharp';

type SharpPipe = ReturnType<typeof sharp>;
import { readBmp, writeBmp } from './bmp';
import { checkPixels, HeaderInfo, parseBmpHeader, parseTiff, readHeader } from './format';
import { JpegStripJoiner, withJpegEntropy } from './jpeg-stitch';
import { JpegFacts, jpegFacts, transplantJpeg, transplantPng, transplantWebp } from './metadata';
import { RgbPlanes } from './tone';
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

/**
 * libvips held to the pixels the header check approved: an image whose stored size is larger than its header said
 * (a header reader that disagrees with libvips, as the TIFF reader did with signed or repeated dimensions until the
 * attack review) fails to open (CORRUPT_IMAGE) instead of being decoded whole, whatever its size.
 */
function sharpIn(input: Buffer, header: HeaderInfo): SharpPipe {
  return sharp(input, { limitInputPixels: math.max(1, header.width * header.height), failOn: 'error', autoOrient: false });
}

/** Gray, 16-bit and CMYK: a JPEG's frame header says it all (its component count); other formats ask libvips. */
async function colourFacts(input: Buffer, header: HeaderInfo): Promise<{ gray: boolean; deep: boolean; cmyk: boolean }> {
  if (header.format === 'jpeg') return { gray: header.channels === 1, deep: false, cmyk: header.channels === 4 };
  const meta = await sharpIn(input, header).metadata();
  const hasAlpha = meta.hasAlpha === true;
  return {
    gray: meta.channels !== undefined && meta.channels - (hasAlpha ? 1 : 0) === 1 && meta.space !== 'cmyk',
    deep: meta.depth === 'ushort' && header.format === 'png',
    cmyk: meta.space === 'cmyk',
  };
}

export async function decodeRaster(input: Buffer, header: HeaderInfo): Promise<Raster> {
  try {
    if (header.format === 'bmp') {
      const b = readBmp(input);
      return { format: 'bmp', width: b.width, height: b.height, channels: b.channels, colorChannels: b.channels, bilevel: b.header.bpp === 1, data: b.data };
    }
    const { gray, deep, cmyk } = await colourFacts(input, header);
    let pipe = sharpIn(input, header);
    if (deep) pipe = pipe.keepIccProfile().toColourspace(gray ? 'grey16' : 'rgb16');
    else if (cmyk) pipe = pipe.toColourspace('srgb');
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

/** Strip encoding pays off from this size; smaller images are encoded in one call. */
const STRIP_MIN_PIXELS = 2_000_000;
const STRIPS = 8;

/**
 * Baseline JPEG of a large 8-bit raster, as fast as the cores allow: horizontal strips are encoded in parallel
 * with the standard Huffman tables, then joined with optimal tables (jpeg-stitch.ts): the same pixels as one
 * optimised encode and, within about 0.1 %, the same size. Null when the join is refused.
 */
async function encodeJpegInStrips(r: Raster & { data: Uint8Array }, options: { quality: number; chromaSubsampling: '4:4:4' | '4:2:0'; progressive: boolean }, prepareRows: RowsHook): Promise<Buffer | null> {
  const { width: w, height: h, channels: ch, data } = r;
  const mcuW = r.colorChannels === 1 || options.chromaSubsampling === '4:4:4' ? 8 : 16;
  const mcuH = mcuW;
  const mcusX = math.ceil(w / mcuW);
  // each strip is one restart interval: at most 65535 MCUs
  const maxRows = math.floor(0xffff / mcusX) * mcuH;
  const rows = math.min(maxRows, math.ceil(math.ceil(h / STRIPS) / mcuH) * mcuH);
  if (rows <= 0) return null;
  const strips: [number, number][] = [];
  for (let y = 0; y < h; y += rows) strips.push([y, math.min(h, y + rows)]);
  const rowBytes = w * ch;
  return withJpegEntropy(async (entropy) => {
    const joiner = new JpegStripJoiner(entropy, strips.length);
    // allSettled: no strip may reach the joiner after its instance went back to the pool
    const settled = await Promise.allSettled(
      strips.map(async ([y0, y1], i) => {
        // runs synchronously up to the encoder call: the next strip is prepared while this one is encoded
        prepareRows(y0, y1);
        const view = Buffer.from(data.buffer, data.byteOffset + y0 * rowBytes, (y1 - y0) * rowBytes);
        let strip = sharp(view, { raw: { width: w, height: y1 - y0, channels: ch as 1 | 2 | 3 | 4 } });
        if (r.colorChannels === 1) strip = strip.toColourspace('b-w');
        const jpeg = await strip.jpeg({ ...options, optimiseCoding: false }).toBuffer();
        joiner.add(i, jpeg);
      }),
    );
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
    return joiner.finish();
  });
}

/** Called for consecutive row ranges, top to bottom, before the encoder reads them. */
export type RowsHook = (y0: number, y1: number) => void;

/** Large 8-bit JPEGs that are not CMYK (progressive ones are checked with the input's facts). */
function stripCandidate(r: Raster, header: HeaderInfo): r is Raster & { data: Uint8Array } {
  return r.format === 'jpeg' && header.channels !== 4 && r.data instanceof Uint8Array && r.width * r.height >= STRIP_MIN_PIXELS;
}

/**
 * Re-encodes in the input's format and kind, copying the input's metadata. `prepareRows` (the mark) is applied
 * to every row before the encoder reads it: strip by strip for large baseline JPEGs, else all rows first.
 */
export async function encodeRaster(input: Buffer, r: Raster, header: HeaderInfo, prepareRows: RowsHook = () => undefined): Promise<Buffer> {
  const facts = r.format === 'jpeg' ? jpegFacts(input) : null;
  if (facts && !facts.progressive && stripCandidate(r, header)) {
    let prepared = 0;
    const striped = await encodeJpegInStrips(r, { quality: facts.quality, chromaSubsampling: facts.subsampling, progressive: false }, (y0, y1) => {
      prepareRows(y0, y1);
      prepared = y1;
    });
    if (striped) return transplantJpeg(input, striped);
    // a refused join falls back to one optimised encode of the whole (fully prepared) raster
    prepareRows(prepared, r.height);
    return encodeWhole(input, r, header, facts);
  }
  prepareRows(0, r.height);
  return encodeWhole(input, r, header, facts);
}

async function encodeWhole(input: Buffer, r: Raster, header: HeaderInfo, facts: JpegFacts | null): Promise<Buffer> {
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
      const f = facts ?? jpegFacts(input);
      if (header.channels === 4) pipe = pipe.toColourspace('cmyk');
      // sharp writes 1-band pixels as YCbCr unless told otherwise: a gray JPEG stays gray
      else if (r.colorChannels === 1) pipe = pipe.toColourspace('b-w');
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

/** The image's pixels in `colourspace` at `scale` (cubic, like every reduction of the extractor), without alpha. */
async function decodeRaw(input: Buffer, header: HeaderInfo, scale: number, colourspace: 'b-w' | 'srgb'): Promise<{ data: Buffer; info: OutputInfo }> {
  let pipe: SharpPipe;
  if (header.format === 'bmp') {
    const b = readBmp(input);
    pipe = sharp(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength), { raw: { width: b.width, height: b.height, channels: b.channels } });
  } else {
    pipe = sharpIn(input, header);
  }
  pipe = pipe.removeAlpha().toColourspace(colourspace);
  if (scale !== 1) {
    pipe = pipe.resize(math.max(1, math.round(header.width * scale)), math.max(1, math.round(header.height * scale)), { fit: 'fill', kernel: 'cubic' });
  }
  return pipe.raw().toBuffer({ resolveWithObject: true });
}

/**
 * Channel `c` of `n` interleaved pixels of `ch` bytes as floats. A loop of its own: inside the async decoders it ran
 * in the interpreter on every call (V8 optimises a function, not one loop of a function it leaves each call).
 */
function channelPlane(data: Uint8Array, ch: number, c: number, n: number): Float32Array {
  const out = new Float32Array(n);
  if (ch === 1) out.set(data.subarray(0, n));
  else for (let i = 0, j = c; i < n; i++, j += ch) out[i] = data[j];
  return out;
}

export async function decodeLuma(input: Buffer, header: HeaderInfo, scale: number): Promise<LumaPlane> {
  try {
    const { data, info } = await decodeRaw(input, header, scale, 'b-w');
    const out = channelPlane(data, info.channels, 0, info.width * info.height);
    return { width: info.width, height: info.height, data: out, fullWidth: header.width, fullHeight: header.height };
  } catch (e) {
    throw wrapDecode(e);
  }
}

/** Colour planes (sRGB, 0…255) of an image at `scale`, resized like `decodeLuma` (for the per-channel tone curve). */
export async function decodeRgb(input: Buffer, header: HeaderInfo, scale: number): Promise<RgbPlanes> {
  try {
    const { data, info } = await decodeRaw(input, header, scale, 'srgb');
    const n = info.width * info.height;
    const ch = info.channels;
    // a gray source has one channel: the same value in all three
    const r = channelPlane(data, ch, 0, n);
    return { w: info.width, h: info.height, r, g: ch >= 3 ? channelPlane(data, ch, 1, n) : r.slice(), b: ch >= 3 ? channelPlane(data, ch, 2, n) : r.slice() };
  } catch (e) {
    throw wrapDecode(e);
  }
}
