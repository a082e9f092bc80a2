import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { embedImage, extractImage } from './index';

const CORPUS = join(__dirname, '../../../../shared/corpus');
const key = { secret: 'robust-spec', version: 'v3' as const };
const id = 0x8badf00ddeadc0den;

describe('robustness regression guard (astronaut.png)', () => {
  const orig = readFileSync(join(CORPUS, 'photos/astronaut.png'));
  let marked: Buffer;
  beforeAll(async () => {
    marked = (await embedImage(orig, id, { key })).data;
  });

  const cases: [string, (b: Buffer) => Promise<Buffer>][] = [
    ['jpeg 50', (b) => sharp(b).jpeg({ quality: 50 }).toBuffer()],
    ['resize 50%', (b) => sharp(b).resize(256, 256).png().toBuffer()],
    ['crop 10%', (b) => sharp(b).extract({ left: 300, top: 40, width: 162, height: 162 }).png().toBuffer()],
    [
      'rotate 5 + crop',
      async (b) => {
        const r = await sharp(b).rotate(5).toBuffer({ resolveWithObject: true });
        return sharp(r.data).extract({ left: 60, top: 60, width: r.info.width - 120, height: r.info.height - 120 }).png().toBuffer();
      },
    ],
  ];
  it.each(cases)('%s: exact payload with the original', async (_name, attack) => {
    const res = await extractImage(await attack(marked), orig, { key });
    expect(res.status).toBe('detected');
    expect(res.payload).toBe(id);
    expect(res.method).toBe('registered');
  });

  it('text scan (text.png): blur 2 and resize 25% with the original (FIR + scale matching)', async () => {
    const text = readFileSync(join(CORPUS, 'photos/text.png'));
    const m = (await embedImage(text, id, { key })).data;
    for (const attacked of [await sharp(m).blur(2).png().toBuffer(), await sharp(m).resize(112, 43, { fit: 'fill' }).png().toBuffer()]) {
      const res = await extractImage(attacked, text, { key });
      expect(res.status).toBe('detected');
      expect(res.payload).toBe(id);
    }
  });

  it('blind: unedited marked image', async () => {
    const res = await extractImage(marked, null, { key });
    expect(res.status).toBe('detected');
    expect(res.payload).toBe(id);
  });

  it('unmarked image is never detected (blind and registered)', async () => {
    expect((await extractImage(orig, null, { key })).status).not.toBe('detected');
    expect((await extractImage(orig, orig, { key })).status).not.toBe('detected');
  });

  it('v3 extraction never detects a v2 mark or another key', async () => {
    const v2 = (await embedImage(orig, id, { key: { secret: 'robust-spec', version: 'v2' } })).data;
    expect((await extractImage(v2, orig, { key })).status).not.toBe('detected');
    expect((await extractImage(v2, null, { key })).status).not.toBe('detected');
    const other = (await embedImage(orig, id, { key: { secret: 'someone-else', version: 'v3' } })).data;
    expect((await extractImage(other, null, { key })).status).not.toBe('detected');
    // and v2 extraction still reads its own mark
    const own = await extractImage(v2, orig, { key: { secret: 'robust-spec', version: 'v2' } });
    expect(own.payload).toBe(id);
  });

  it('PSNR of the mark stays above 40 dB', async () => {
    const a = await sharp(orig).raw().toBuffer();
    const b = await sharp(marked).raw().toBuffer();
    let mse = 0;
    for (let i = 0; i < a.length; i++) mse += (a[i] - b[i]) ** 2;
    expect(10 * Math.log10((255 * 255) / (mse / a.length))).toBeGreaterThan(40);
  });
});
