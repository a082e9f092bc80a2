import sharp from 'sharp';
import { checkInput, decodeLuma, LumaPlane } from './codec';
import { embedImage } from './embed';
import { workingScales } from './extract';
import { placeOnMark } from './mark-placement';
import { mulberry32 } from './testing/random';

// A flat grey original with a little sensor noise (nothing an image registration could align on), marked, and crops
// of it at their original scale.
const key = { secret: 'mark-placement-spec', version: 'v3' as const };
const W = 640;
const H = 480;

async function flatGrey(): Promise<Buffer> {
  const rand = mulberry32(11);
  const px = Buffer.alloc(W * H * 3);
  for (let i = 0; i < px.length; i++) px[i] = 90 + Math.round(rand() * 2 - 1);
  return sharp(px, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

async function planes(original: Buffer, copy: Buffer): Promise<{ O: LumaPlane; I: LumaPlane; s: number; si: number }> {
  const oh = checkInput(original, 1e9);
  const ih = checkInput(copy, 1e9);
  const { s, si } = workingScales(oh, ih);
  return { O: await decodeLuma(original, oh, s), I: await decodeLuma(copy, ih, si), s, si };
}

describe('placeOnMark', () => {
  let original: Buffer;
  let marked: Buffer;
  beforeAll(async () => {
    original = await flatGrey();
    marked = (await embedImage(original, 0x5eed5eed12345678n, { key })).data;
  });
  const cut = (img: Buffer, quality: number): Promise<Buffer> => sharp(img).extract({ left: 333, top: 217, width: 180, height: 130 }).jpeg({ quality }).toBuffer();

  it('finds where a flat crop of the marked picture was cut, within a pixel', async () => {
    const { O, I, s, si } = await planes(original, await cut(marked, 80));
    const found = placeOnMark(O, I, key, s / si, null);
    expect(found).not.toBeNull();
    if (!found) return;
    // a translation at the unresized scale, landing where the crop was cut (working pixels)
    expect([found[0], found[1], found[3], found[4]]).toEqual([s / si, 0, 0, s / si]);
    expect(Math.abs(found[2] - 333 * s)).toBeLessThan(1);
    expect(Math.abs(found[5] - 217 * s)).toBeLessThan(1);
  });

  it('places nothing on the same crop of the unmarked picture, or with another key', async () => {
    const plain = await planes(original, await cut(original, 80));
    expect(placeOnMark(plain.O, plain.I, key, plain.s / plain.si, null)).toBeNull();
    const other = await planes(original, await cut(marked, 80));
    expect(placeOnMark(other.O, other.I, { secret: 'another-tenant', version: 'v3' }, other.s / other.si, null)).toBeNull();
  });

  it('keeps a registration on which the mark is as clear', async () => {
    const { O, I, s, si } = await planes(original, await cut(marked, 80));
    const right = Float64Array.from([s / si, 0, 333 * s, 0, s / si, 217 * s, 0, 0, 1]);
    expect(placeOnMark(O, I, key, s / si, right)).toBeNull();
    // a registration elsewhere is replaced
    const wrong = Float64Array.from([s / si, 0, 40 * s, 0, s / si, 30 * s, 0, 0, 1]);
    expect(placeOnMark(O, I, key, s / si, wrong)).not.toBeNull();
  });

  it('does not search a copy as large as the original', async () => {
    const { O, I, s, si } = await planes(original, marked);
    expect(placeOnMark(O, I, key, s / si, null)).toBeNull();
  });
});
