/** Byte-level metadata transplant: pixels are re-encoded by sharp, metadata is copied verbatim from the input. */
/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;
const num = Number;

interface Segment {
  marker: number;
  start: number;
  end: number;
}

function jpegSegments(buf: Buffer): Segment[] {
  const out: Segment[] = [];
  let p = 2;
  while (p + 4 <= buf.length && buf[p] === 0xff) {
    const marker = buf[p + 1];
    if (marker === 0xda || marker === 0xd9) break;
    const len = buf.readUInt16BE(p + 2);
    out.push({ marker, start: p, end: p + 2 + len });
    p += 2 + len;
  }
  return out;
}

/** Copies APP1..APP13, APP15 (EXIF, XMP, ICC, IPTC) and COM segments of `from` into `to` (which sharp wrote without metadata). */
export function transplantJpeg(from: Buffer, to: Buffer): Buffer {
  const keep = jpegSegments(from).filter((s) => (s.marker >= 0xe1 && s.marker <= 0xef && s.marker !== 0xee) || s.marker === 0xfe);
  if (keep.length === 0) return to;
  const outSegs = jpegSegments(to);
  const strip = new Set([...outSegs.filter((s) => s.marker >= 0xe1 && s.marker <= 0xef && s.marker !== 0xee)].map((s) => s.start));
  let insertAt = 2;
  if (outSegs.length > 0 && outSegs[0].marker === 0xe0) insertAt = outSegs[0].end;
  const parts: Buffer[] = [to.subarray(0, insertAt), ...keep.map((s) => from.subarray(s.start, s.end))];
  let p = insertAt;
  for (const s of outSegs) {
    if (s.start < insertAt) continue;
    if (strip.has(s.start)) {
      parts.push(to.subarray(p, s.start));
      p = s.end;
    }
  }
  parts.push(to.subarray(p));
  return Buffer.concat(parts);
}

const PNG_META = new Set(['iCCP', 'sRGB', 'gAMA', 'cHRM', 'pHYs', 'eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'sBIT']);

/** The chunks of a PNG after its signature, up to IEND; the last one may end past the buffer (a file cut short). */
export function pngChunks(buf: Buffer): { type: string; start: number; end: number }[] {
  const out: { type: string; start: number; end: number }[] = [];
  let p = 8;
  while (p + 12 <= buf.length) {
    const len = buf.readUInt32BE(p);
    const type = buf.toString('latin1', p + 4, p + 8);
    out.push({ type, start: p, end: p + 12 + len });
    p += 12 + len;
    if (type === 'IEND') break;
  }
  return out;
}

/** Copies the ancillary metadata chunks of `from` (ICC, EXIF, text, gamma, physical size) into `to`, after IHDR. */
export function transplantPng(from: Buffer, to: Buffer): Buffer {
  const src = pngChunks(from).filter((c) => PNG_META.has(c.type));
  if (src.length === 0) return to;
  const types = new Set(src.map((c) => c.type));
  const dst = pngChunks(to);
  const parts: Buffer[] = [to.subarray(0, 8)];
  for (const c of dst) {
    if (PNG_META.has(c.type) && (types.has(c.type) || (c.type === 'sRGB' && types.has('iCCP')))) continue;
    parts.push(to.subarray(c.start, c.end));
    if (c.type === 'IHDR') for (const s of src) parts.push(from.subarray(s.start, s.end));
  }
  return Buffer.concat(parts);
}

function riffChunks(buf: Buffer): { fourcc: string; start: number; end: number; dataStart: number; size: number }[] {
  const out: { fourcc: string; start: number; end: number; dataStart: number; size: number }[] = [];
  let p = 12;
  while (p + 8 <= buf.length) {
    const fourcc = buf.toString('latin1', p, p + 4);
    const size = buf.readUInt32LE(p + 4);
    const end = math.min(buf.length, p + 8 + size + (size & 1));
    out.push({ fourcc, start: p, end, dataStart: p + 8, size });
    p = end;
  }
  return out;
}

/** Rebuilds a VP8X WebP from the image chunks of `to` and the ICCP/EXIF/XMP chunks of `from`. */
export function transplantWebp(from: Buffer, to: Buffer, width: number, height: number): Buffer {
  const meta = riffChunks(from).filter((c) => c.fourcc === 'ICCP' || c.fourcc === 'EXIF' || c.fourcc === 'XMP ');
  if (meta.length === 0) return to;
  const img = riffChunks(to).filter((c) => c.fourcc === 'ALPH' || c.fourcc === 'VP8 ' || c.fourcc === 'VP8L');
  const get = (cc: string): Buffer[] => meta.filter((c) => c.fourcc === cc).map((c) => from.subarray(c.start, c.end));
  const hasAlpha = img.some((c) => c.fourcc === 'ALPH') || img.some((c) => c.fourcc === 'VP8L' && ((to.readUInt32LE(c.dataStart + 1) >>> 28) & 1) === 1);
  let flags = 0;
  if (get('ICCP').length) flags |= 0x20;
  if (hasAlpha) flags |= 0x10;
  if (get('EXIF').length) flags |= 0x08;
  if (get('XMP ').length) flags |= 0x04;
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'latin1');
  vp8x.writeUInt32LE(10, 4);
  vp8x[8] = flags;
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const body = Buffer.concat([vp8x, ...get('ICCP'), ...img.map((c) => to.subarray(c.start, c.end)), ...get('EXIF'), ...get('XMP ')]);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}

/** JPEG facts for re-encoding: IJG-equivalent quality, chroma subsampling, progressive, CMYK. */
export interface JpegFacts {
  quality: number;
  subsampling: '4:4:4' | '4:2:0';
  progressive: boolean;
}

const STD_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24,
  35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30,
  37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/** Estimates the IJG quality whose scaled standard luminance table is closest to the file's table 0. */
export function jpegFacts(buf: Buffer): JpegFacts {
  let table: number[] | null = null;
  let subsampling: '4:4:4' | '4:2:0' = '4:2:0';
  let progressive = false;
  for (const s of jpegSegments(buf)) {
    if (s.marker === 0xdb) {
      let p = s.start + 4;
      while (p < s.end) {
        const pq = buf[p] >> 4;
        const tq = buf[p] & 15;
        const t: number[] = new Array<number>(64).fill(1);
        for (let k = 0; k < 64; k++) t[ZIGZAG[k]] = pq ? buf.readUInt16BE(p + 1 + k * 2) : buf[p + 1 + k];
        if (tq === 0 && table === null) table = t;
        p += 1 + 64 * (pq ? 2 : 1);
      }
    } else if (s.marker >= 0xc0 && s.marker <= 0xcf && s.marker !== 0xc4 && s.marker !== 0xc8 && s.marker !== 0xcc) {
      progressive = s.marker === 0xc2 || s.marker === 0xc6 || s.marker === 0xca || s.marker === 0xce;
      const nc = buf[s.start + 9];
      const h0 = buf[s.start + 11] >> 4;
      const v0 = buf[s.start + 11] & 15;
      subsampling = nc >= 3 && (h0 > 1 || v0 > 1) ? '4:2:0' : '4:4:4';
    }
  }
  let quality = 90;
  if (table) {
    let best = num.POSITIVE_INFINITY;
    for (let q = 1; q <= 100; q++) {
      const scale = q < 50 ? 5000 / q : 200 - 2 * q;
      let err = 0;
      for (let k = 0; k < 64; k++) {
        const v = math.min(255, math.max(1, math.floor((STD_LUMA[k] * scale + 50) / 100)));
        err += math.abs(math.log(v) - math.log(table[k]));
      }
      if (err < best) {
        best = err;
        quality = q;
      }
    }
  }
  return { quality, subsampling, progressive };
}
