import sharp from 'sharp';
import { ceilingMap, embedImage } from './embed';
import { extractImage } from './extract';
import { astronautPng, starFieldPng } from './testing/fixtures';
import { ssim } from './testing/ssim';

const key = { secret: 'masking-spec', version: 'v3' as const };
const id = 0x0ddba11cafef00dn;

async function luma(image: Buffer): Promise<{ d: Float64Array; w: number; h: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const d = new Float64Array(info.width * info.height);
  for (let i = 0; i < d.length; i++) d[i] = 0.299 * data[i * 3] + 0.587 * data[i * 3 + 1] + 0.114 * data[i * 3 + 2];
  return { d, w: info.width, h: info.height };
}

describe('visual masking (issue 16, part 2)', () => {
  it('holds flat and dark cells under textured and bright ones', () => {
    const [flatBright, flatDark, flatBlack, textured] = ceilingMap(new Float32Array([0, 0, 0, 20]), new Float32Array([200, 20, 0, 200]));
    expect(flatDark).toBeLessThan(flatBright);
    expect(flatBlack).toBeLessThan(flatDark);
    expect(flatBlack).toBeGreaterThan(0); // black still carries some mark: crops of it must not be empty
    expect(textured).toBeGreaterThan(2 * flatBright);
  });

  it('a mostly black frame with a small subject stays at SSIM ≥ 0.98 and keeps its mark through JPEG 70', async () => {
    const subject = await sharp(await astronautPng()).resize(160, 160).toBuffer();
    const frame = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 6, g: 6, b: 8 } } })
      .composite([{ input: subject, left: 240, top: 160 }])
      .png()
      .toBuffer();
    const marked = await embedImage(frame, id, { key });
    const [before, after] = await Promise.all([luma(frame), luma(marked.data)]);
    const score = ssim(before.d, after.d, before.w, before.h);
    expect(score).toBeGreaterThanOrEqual(0.98);
    expect(score).toBeLessThan(0.9999); // the mark is there
    const leaked = await sharp(marked.data).jpeg({ quality: 70 }).toBuffer();
    const found = await extractImage(leaked, frame, { key });
    expect(found).toMatchObject({ status: 'detected', payload: id });
  }, 120_000);

  // issue 34: sparse bright points on black (a deep field scored 0.9798): the stars gave their cells a high activity
  // and the mark spread over the black around them; such a fixture measured 0.971 before the dark-flat share
  it('a star field stays at SSIM ≥ 0.98 and keeps its mark through JPEG 70', async () => {
    const stars = await starFieldPng(400, 300, 11);
    const marked = await embedImage(stars, id, { key });
    const [before, after] = await Promise.all([luma(stars), luma(marked.data)]);
    const score = ssim(before.d, after.d, before.w, before.h);
    expect(score).toBeGreaterThanOrEqual(0.98);
    expect(score).toBeLessThan(0.9999);
    const found = await extractImage(await sharp(marked.data).jpeg({ quality: 70 }).toBuffer(), stars, { key });
    expect(found).toMatchObject({ status: 'detected', payload: id });
  }, 120_000);
});
