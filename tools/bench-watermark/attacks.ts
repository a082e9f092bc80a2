import sharp from 'sharp';
// Test helpers of the engine, not part of its public surface (as main.ts imports its SSIM).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { centreCrop, keystone, rotateCrop, sepiaVignette, vignetteAfterResize, warpCorners } from '../../libs/watermark/src/testing/edits';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { mulberry32 } from '../../libs/watermark/src/testing/random';

/** Deterministic PRNG (mulberry32) so benchmark runs repeat. */
export const rng = mulberry32;

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
  const { w, h } = await dims(img);
  const src = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]];
  const dst = src.map(([x, y]) => [x + (x === 0 ? 1 : -1) * rand() * frac * w, y + (y === 0 ? 1 : -1) * rand() * frac * h] as [number, number]);
  return warpCorners(img, dst, 255);
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

// ---- issue 34: keystone, tiny crops, strong toning, borders, two-step chains, thumbnails, pasted into a page ----

/** Two random steps of resize, recompression and crop; `strong` draws the harsher half of each range. */
async function twoStep(img: Buffer, rand: () => number, strong: boolean): Promise<Buffer> {
  const steps: Attack[] = [
    (i, r) => resize(i, strong ? 0.3 + 0.2 * r() : 0.55 + 0.25 * r()),
    (i, r) => sharp(i).jpeg({ quality: Math.round(strong ? 35 + 20 * r() : 60 + 25 * r()) }).toBuffer(),
    (i, r) => crop(i, strong ? 0.15 + 0.2 * r() : 0.45 + 0.35 * r(), r),
  ];
  let out = img;
  for (let k = 0; k < 2; k++) out = await steps[Math.floor(rand() * 3)](out, rand);
  return out;
}

/** A thumbnail: the longer side brought to `side` px, JPEG 80. */
async function thumbnail(img: Buffer, side: number): Promise<Buffer> {
  return sharp(img).resize(side, side, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer();
}

/** A wide white border, `frac` of the longer side on every side, then JPEG 85. */
async function whiteBorder(img: Buffer, frac: number): Promise<Buffer> {
  const { w, h } = await dims(img);
  const b = Math.round(frac * Math.max(w, h));
  const bordered = await sharp(img).extend({ top: b, bottom: b, left: b, right: b, background: '#ffffff' }).png().toBuffer();
  return sharp(bordered).jpeg({ quality: 85 }).toBuffer();
}

/** The picture reduced to `scale`, pasted into a white page (its own size, a headline above it), JPEG 85. */
async function pastedInPage(img: Buffer, scale: number, rand: () => number): Promise<Buffer> {
  const { w, h } = await dims(img);
  const pw = Math.round(w * 1.1);
  const headline = Math.round(h * 0.12);
  const ph = Math.round(h * 1.1) + headline;
  const sw = Math.max(8, Math.round(w * scale));
  const sh = Math.max(8, Math.round(h * scale));
  const small = await sharp(img).resize(sw, sh, { fit: 'fill' }).png().toBuffer();
  const left = Math.floor(rand() * (pw - sw + 1));
  const top = headline + Math.floor(rand() * (ph - headline - sh + 1));
  const fs = Math.round(headline * 0.6);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${headline}"><text x="${Math.round(pw * 0.04)}" y="${Math.round(headline * 0.75)}" font-family="sans-serif" font-weight="bold" font-size="${fs}" fill="#111">Leaked: the picture of the week</text></svg>`;
  const page = await sharp({ create: { width: pw, height: ph, channels: 3, background: '#ffffff' } })
    .composite([
      { input: Buffer.from(svg), left: 0, top: 0 },
      { input: small, left, top },
    ])
    .png()
    .toBuffer();
  return sharp(page).jpeg({ quality: 85 }).toBuffer();
}

export const NEW_ATTACKS: [string, Attack][] = [
  ...[0.05, 0.1, 0.15, 0.2].map((k): [string, Attack] => [`keystone ${k * 100}%, black fill + jpeg 85`, async (i, r) => sharp(await keystone(i, k, Math.floor(r() * 4))).jpeg({ quality: 85 }).toBuffer()]),
  ...[0.08, 0.05, 0.03].map((a): [string, Attack] => [`centre crop ${a * 100}% area`, (i, r) => centreCrop(i, a, (r() - 0.5) * 0.1, (r() - 0.5) * 0.1)]),
  ...[0.3, 0.5, 0.7].map((v): [string, Attack] => [`sepia + vignette ${v}`, async (i) => sharp(await sepiaVignette(i, v)).jpeg({ quality: 90 }).toBuffer()]),
  ...[0.1, 0.25, 0.5].map((f): [string, Attack] => [`white border ${f * 100}% + jpeg 85`, (i) => whiteBorder(i, f)]),
  ['two-step resize/jpeg/crop, mild', (i, r) => twoStep(i, r, false)],
  ['two-step resize/jpeg/crop, strong', (i, r) => twoStep(i, r, true)],
  ...[512, 400, 256].map((s): [string, Attack] => [`thumbnail ${s} px jpeg 80`, (i) => thumbnail(i, s)]),
  ...[0.8, 0.6, 0.4].map((s): [string, Attack] => [`pasted at ${s * 100}% into a page with headline`, (i, r) => pastedInPage(i, s, r)]),
  // eighth pass (appended, so the rows above keep their seeds): a vignette after a resize, then JPEG 60, as a photo
  // filter on a shared copy would do (resized to 50–80 %); plain and with sepia
  ...[false, true].flatMap((sepia) => [0.6, 0.9].map((v): [string, Attack] => [`resize > ${sepia ? 'sepia + ' : ''}vignette ${v} > jpeg 60`, (i, r) => vignetteAfterResize(i, 0.5 + 0.3 * r(), v, sepia)])),
];
