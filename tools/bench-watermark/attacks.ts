import sharp from 'sharp';
// Test helpers of the engine, not part of its public surface (as main.ts imports its SSIM).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { rotateCrop } from '../../libs/watermark/src/testing/edits';

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

export { crop, resize, pointOp };

// ---- geometry (issue 16): any rotation, mirrors, chains, small perspective; every parameter drawn at random ----

const randomFill = (rand: () => number): { r: number; g: number; b: number; alpha: number } => ({
  r: Math.floor(rand() * 256),
  g: Math.floor(rand() * 256),
  b: Math.floor(rand() * 256),
  alpha: 1,
});

/** Rotation by any angle onto an expanded canvas; corners filled with a random colour, white, black or transparent (flattened). */
async function rotateExpand(img: Buffer, deg: number, rand: () => number): Promise<Buffer> {
  const kind = Math.floor(rand() * 4);
  const fill = kind === 0 ? randomFill(rand) : kind === 1 ? '#ffffff' : kind === 2 ? '#000000' : { r: 0, g: 0, b: 0, alpha: 0 };
  const rot = sharp(await sharp(img).ensureAlpha().rotate(deg, { background: fill }).png().toBuffer());
  return (kind === 3 ? rot.flatten({ background: '#ffffff' }) : rot.removeAlpha()).png().toBuffer();
}

/** Rotation by any angle, borders cropped away (largest centred rectangle of the original aspect). */
async function rotateCropAny(img: Buffer, deg: number): Promise<Buffer> {
  // quarter turns exactly, then the remainder in [-45, 45] degrees with the borders cropped
  const quarter = Math.round(deg / 90);
  const base = quarter % 4 === 0 ? img : await sharp(img).rotate((((quarter % 4) + 4) % 4) * 90).png().toBuffer();
  return rotateCrop(base, deg - 90 * quarter);
}

const mirror = (img: Buffer, vertical: boolean): Promise<Buffer> => (vertical ? sharp(img).flip() : sharp(img).flop()).png().toBuffer();

/** Small perspective: each corner moved inwards by up to `frac` of the size (a photo taken slightly off-axis). */
async function perspective(img: Buffer, frac: number, rand: () => number): Promise<Buffer> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const src = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]];
  const dst = src.map(([x, y]) => [x + (x === 0 ? 1 : -1) * rand() * frac * w, y + (y === 0 ? 1 : -1) * rand() * frac * h]);
  // homography dst -> src by the 8x8 direct linear transform
  const A: number[][] = [];
  const b: number[] = [];
  for (let k = 0; k < 4; k++) {
    const [x, y] = dst[k];
    const [u, v] = src[k];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  for (let i = 0; i < 8; i++) {
    let p = i;
    for (let r = i + 1; r < 8; r++) if (Math.abs(A[r][i]) > Math.abs(A[p][i])) p = r;
    [A[i], A[p]] = [A[p], A[i]];
    [b[i], b[p]] = [b[p], b[i]];
    for (let r = 0; r < 8; r++) {
      if (r === i) continue;
      const f = A[r][i] / A[i][i];
      for (let j = i; j < 8; j++) A[r][j] -= f * A[i][j];
      b[r] -= f * b[i];
    }
  }
  const H = b.map((v, i) => v / A[i][i]);
  const out = Buffer.alloc(data.length, 255);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const z = H[6] * x + H[7] * y + 1;
      const u = (H[0] * x + H[1] * y + H[2]) / z;
      const v = (H[3] * x + H[4] * y + H[5]) / z;
      if (u < 0 || v < 0 || u > w - 1 || v > h - 1) continue;
      const x0 = Math.min(w - 2, Math.floor(u));
      const y0 = Math.min(h - 2, Math.floor(v));
      const fx = u - x0;
      const fy = v - y0;
      for (let ch = 0; ch < c; ch++) {
        const i = (y0 * w + x0) * c + ch;
        const top = data[i] + (data[i + c] - data[i]) * fx;
        const bot = data[i + w * c] + (data[i + w * c + c] - data[i + w * c]) * fx;
        out[(y * w + x) * c + ch] = Math.round(top + (bot - top) * fy);
      }
    }
  }
  return sharp(out, { raw: { width: w, height: h, channels: c } }).png().toBuffer();
}

/** One random edit of a chain. */
const CHAIN_STEPS: [string, Attack][] = [
  ['scale', (i, r) => resize(i, 0.45 + 0.45 * r())],
  ['rotate', (i, r) => rotateExpand(i, r() * 360, r)],
  ['crop', (i, r) => crop(i, 0.5 + 0.3 * r(), r)],
  ['jpeg', (i, r) => sharp(i).jpeg({ quality: Math.round(55 + 30 * r()) }).toBuffer()],
  ['contrast 40%', (i, r) => pointOp(i, r() < 0.5 ? (v) => 128 + (v - 128) * 1.4 : (v) => 128 + (v - 128) * 0.6)],
  ['mirror', (i, r) => mirror(i, r() < 0.5)],
];

/** The random order of a chain's edits (the first draws of `rand`). */
function chainOrder(rand: () => number): [string, Attack][] {
  const order = [...CHAIN_STEPS];
  for (let k = order.length - 1; k > 0; k--) {
    const j = Math.floor(rand() * (k + 1));
    [order[k], order[j]] = [order[j], order[k]];
  }
  return order;
}

async function chain(img: Buffer, rand: () => number, steps: number): Promise<Buffer> {
  const order = chainOrder(rand);
  let out = img;
  for (const [, step] of order.slice(0, steps)) out = await step(out, rand);
  return out;
}

export const GEOMETRY_ATTACKS: [string, Attack][] = [
  ['rotate any, expanded canvas, random fill', (i, r) => rotateExpand(i, r() * 360, r)],
  ['rotate any + crop borders', (i, r) => rotateCropAny(i, r() * 360 - 180)],
  ['rotate 90/180/270', (i, r) => sharp(i).rotate(90 * (1 + Math.floor(r() * 3))).png().toBuffer()],
  ['small tilt 0.5-3 + crop', (i, r) => rotateCrop(i, (r() < 0.5 ? -1 : 1) * (0.5 + 2.5 * r()))],
  ['mirror H', (i) => mirror(i, false)],
  ['mirror V', (i) => mirror(i, true)],
  [
    'mirror + rotate any + scale + crop + jpeg',
    async (i, r) => {
      const m = await mirror(i, r() < 0.5);
      const rot = await rotateExpand(m, r() * 360, r);
      const sc = await resize(rot, 0.5 + 0.4 * r());
      return sharp(await crop(sc, 0.6 + 0.3 * r(), r)).jpeg({ quality: Math.round(60 + 30 * r()) }).toBuffer();
    },
  ],
  ['chain of 3 random edits', (i, r) => chain(i, r, 3)],
  ['chain of 5 random edits', (i, r) => chain(i, r, 5)],
  ['small perspective (corners 1-4%)', (i, r) => perspective(i, 0.01 + 0.03 * r(), r)],
];

/** Negatives for the false-positive loop: a random rotation (expanded canvas) and/or mirror. */
export async function randomGeometry(img: Buffer, rand: () => number): Promise<Buffer> {
  const k = Math.floor(rand() * 3);
  if (k === 0) return mirror(img, rand() < 0.5);
  if (k === 1) return rotateExpand(img, rand() * 360, rand);
  return rotateExpand(await mirror(img, rand() < 0.5), rand() * 360, rand);
}

export { rotateExpand, mirror, chainOrder };
