import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** Interleaved RGB, 8 bit. */
export interface Rgb {
  width: number;
  height: number;
  data: Uint8Array;
}

export function rgbaToRgb(rgba: Uint8Array, width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; j < data.length; i += 4, j += 3) {
    data[j] = rgba[i];
    data[j + 1] = rgba[i + 1];
    data[j + 2] = rgba[i + 2];
  }
  return { width, height, data };
}

export async function rgbToPng(img: Rgb, compressionLevel = 1): Promise<Buffer> {
  return sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), {
    raw: { width: img.width, height: img.height, channels: 3 },
  })
    .png({ compressionLevel })
    .toBuffer();
}

export async function decodeRgb(buf: Buffer): Promise<Rgb> {
  const { data, info } = await sharp(buf).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels === 3) return { width: info.width, height: info.height, data };
  const out = new Uint8Array(info.width * info.height * 3);
  for (let i = 0; i < info.width * info.height; i++) out[i * 3] = out[i * 3 + 1] = out[i * 3 + 2] = data[i * info.channels];
  return { width: info.width, height: info.height, data: out };
}

export async function resizeRgb(img: Rgb, width: number, height: number): Promise<Rgb> {
  if (img.width === width && img.height === height) return img;
  const data = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), {
    raw: { width: img.width, height: img.height, channels: 3 },
  })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  return { width, height, data };
}

/** Luma (Rec. 601) as floats. */
export function luma(img: Rgb): Float32Array {
  const out = new Float32Array(img.width * img.height);
  const d = img.data;
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = 0.299 * d[j] + 0.587 * d[j + 1] + 0.114 * d[j + 2];
  return out;
}

/** Copies `src` into `dst` at (left, top), clipped to dst. */
export function paste(dst: Rgb, src: Rgb, left: number, top: number): void {
  for (let y = 0; y < src.height; y++) {
    const dy = y + top;
    if (dy < 0 || dy >= dst.height) continue;
    const x0 = Math.max(0, -left);
    const x1 = Math.min(src.width, dst.width - left);
    if (x1 <= x0) continue;
    dst.data.set(src.data.subarray((y * src.width + x0) * 3, (y * src.width + x1) * 3), (dy * dst.width + left + x0) * 3);
  }
}

/**
 * PNG-predicted (per-row best of Sub / Up / Paeth) and deflated 8-bit single-channel samples, as PDF's
 * FlateDecode with /Predictor 15 expects.
 */
export function deflatePredicted(samples: Uint8Array, width: number, height: number): Buffer {
  const out = new Uint8Array(height * (width + 1));
  const cand = [new Uint8Array(width), new Uint8Array(width), new Uint8Array(width)];
  for (let y = 0; y < height; y++) {
    const row = samples.subarray(y * width, (y + 1) * width);
    const up = y > 0 ? samples.subarray((y - 1) * width, y * width) : null;
    const cost = [0, 0, 0];
    for (let x = 0; x < width; x++) {
      const a = x > 0 ? row[x - 1] : 0;
      const b = up ? up[x] : 0;
      const c = up && x > 0 ? up[x - 1] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      const v = row[x];
      cand[0][x] = (v - a) & 255;
      cand[1][x] = (v - b) & 255;
      cand[2][x] = (v - paeth) & 255;
      for (let k = 0; k < 3; k++) {
        const s = cand[k][x];
        cost[k] += s < 128 ? s : 256 - s;
      }
    }
    const best = cost[0] <= cost[1] && cost[0] <= cost[2] ? 0 : cost[1] <= cost[2] ? 1 : 2;
    out[y * (width + 1)] = [1, 2, 4][best];
    out.set(cand[best], y * (width + 1) + 1);
  }
  return deflateSync(out, { level: 9 });
}

/** 1-bit samples (MSB first, rows padded to bytes), deflated. */
export function deflateBits(bits: Uint8Array, width: number, height: number): Buffer {
  const stride = (width + 7) >> 3;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) if (bits[y * width + x]) out[y * stride + (x >> 3)] |= 0x80 >> (x & 7);
  }
  return deflateSync(out, { level: 9 });
}
