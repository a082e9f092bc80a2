import sharp from 'sharp';

/** Deterministic PRNG (mulberry32) so benchmark runs repeat. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Attack = (img: Buffer, rand: () => number) => Promise<Buffer>;

async function dims(img: Buffer): Promise<{ w: number; h: number }> {
  const m = await sharp(img).metadata();
  return { w: m.width ?? 0, h: m.height ?? 0 };
}

async function crop(img: Buffer, areaFrac: number, rand: () => number): Promise<Buffer> {
  const { w, h } = await dims(img);
  const cw = Math.max(8, Math.round(w * Math.sqrt(areaFrac)));
  const ch = Math.max(8, Math.round(h * Math.sqrt(areaFrac)));
  const left = Math.floor(rand() * (w - cw + 1));
  const top = Math.floor(rand() * (h - ch + 1));
  return sharp(img).extract({ left, top, width: cw, height: ch }).png().toBuffer();
}

async function rotateCrop(img: Buffer, deg: number): Promise<Buffer> {
  const { w, h } = await dims(img);
  const rot = await sharp(img).rotate(deg, { background: '#808080' }).toBuffer({ resolveWithObject: true });
  // largest axis-aligned rectangle of the original aspect inside the rotated image
  const a = (Math.abs(deg) * Math.PI) / 180;
  const s = Math.min(w / (w * Math.cos(a) + h * Math.sin(a)), h / (w * Math.sin(a) + h * Math.cos(a)));
  const cw = Math.floor(w * s) - 2;
  const ch = Math.floor(h * s) - 2;
  return sharp(rot.data)
    .extract({ left: Math.floor((rot.info.width - cw) / 2), top: Math.floor((rot.info.height - ch) / 2), width: cw, height: ch })
    .png()
    .toBuffer();
}

async function resize(img: Buffer, f: number): Promise<Buffer> {
  const { w, h } = await dims(img);
  return sharp(img).resize(Math.max(1, Math.round(w * f)), Math.max(1, Math.round(h * f)), { fit: 'fill' }).png().toBuffer();
}

async function noise(img: Buffer, sigma: number, rand: () => number): Promise<Buffer> {
  const { data, info } = await sharp(img).raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i++) {
    const g = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    data[i] = Math.max(0, Math.min(255, Math.round(data[i] + g * sigma)));
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

async function pointOp(img: Buffer, f: (v: number) => number): Promise<Buffer> {
  const { data, info } = await sharp(img).raw().toBuffer({ resolveWithObject: true });
  const lut = new Uint8Array(256);
  for (let v = 0; v < 256; v++) lut[v] = Math.max(0, Math.min(255, Math.round(f(v))));
  for (let i = 0; i < data.length; i++) data[i] = lut[data[i]];
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

export const ATTACKS: [string, Attack][] = [
  ['none', async (i) => i],
  ['jpeg 90', (i) => sharp(i).jpeg({ quality: 90 }).toBuffer()],
  ['jpeg 70', (i) => sharp(i).jpeg({ quality: 70 }).toBuffer()],
  ['jpeg 50', (i) => sharp(i).jpeg({ quality: 50 }).toBuffer()],
  ['jpeg 30', (i) => sharp(i).jpeg({ quality: 30 }).toBuffer()],
  ['webp 50', (i) => sharp(i).webp({ quality: 50 }).toBuffer()],
  ['resize 50%', (i) => resize(i, 0.5)],
  ['resize 25%', (i) => resize(i, 0.25)],
  ['crop 50% area', (i, r) => crop(i, 0.5, r)],
  ['crop 10% area', (i, r) => crop(i, 0.1, r)],
  ['rotate 5 + crop', (i) => rotateCrop(i, 5)],
  ['rotate 15 + crop', (i) => rotateCrop(i, 15)],
  ['blur 1', (i) => sharp(i).blur(1).png().toBuffer()],
  ['blur 2', (i) => sharp(i).blur(2).png().toBuffer()],
  ['noise 5', (i, r) => noise(i, 5, r)],
  ['noise 15', (i, r) => noise(i, 15, r)],
  ['brightness +30%', (i) => pointOp(i, (v) => v * 1.3)],
  ['brightness -30%', (i) => pointOp(i, (v) => v * 0.7)],
  ['contrast +30%', (i) => pointOp(i, (v) => 128 + (v - 128) * 1.3)],
  ['contrast -30%', (i) => pointOp(i, (v) => 128 + (v - 128) * 0.7)],
  ['gamma 0.7', (i) => pointOp(i, (v) => 255 * Math.pow(v / 255, 0.7))],
  ['gamma 1.4', (i) => pointOp(i, (v) => 255 * Math.pow(v / 255, 1.4))],
  ['grayscale', (i) => sharp(i).greyscale().png().toBuffer()],
  ['screenshot 0.67 png', (i) => resize(i, 0.67)],
  ['chain resize50>jpeg70>crop80', async (i, r) => crop(await sharp(await resize(i, 0.5)).jpeg({ quality: 70 }).toBuffer(), 0.8, r)],
];

export const BLIND_ATTACKS: [string, Attack][] = [
  ['blind none', async (i) => i],
  ['blind jpeg 90', (i) => sharp(i).jpeg({ quality: 90 }).toBuffer()],
  ['blind jpeg 70', (i) => sharp(i).jpeg({ quality: 70 }).toBuffer()],
  ['blind jpeg 50', (i) => sharp(i).jpeg({ quality: 50 }).toBuffer()],
  ['blind resize 50%', (i) => resize(i, 0.5)],
];

export { crop, resize };
