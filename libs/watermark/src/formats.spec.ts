import sharp from 'sharp';
import { embedImage, EmbedResult, extractImage, ImageInfo, inspectImage, WatermarkError, WatermarkErrorCode } from './index';
import { readBmp, writeBmp } from './bmp';
import { parseBmpHeader } from './format';
import { astronautPng, fixture, pngBomb, textPng } from './testing/fixtures';

const read = fixture;
// broken inputs are built here: empty, a JPEG cut in half, plain text, a PNG (the corpus names it .jpg)
const broken = async (file: string): Promise<Buffer> => {
  if (file === 'empty.jpg') return Buffer.alloc(0);
  if (file === 'not-an-image.png') return Buffer.from('this is not an image\n');
  const jpeg = fixture('photos/astronaut.jpg');
  if (file === 'truncated.jpg') return jpeg.subarray(0, jpeg.length >> 1);
  return astronautPng();
};
const key = { secret: 'format-spec', version: 'v3' as const };

const SUPPORTED = [
  'bmp-24bit-rgb.bmp', 'bmp-8bit-gray.bmp', 'bmp-1bit.bmp', 'tif-8bit-rgb.tif', 'tiff-8bit-rgb-lzw.tiff', 'tif-8bit-gray.tif', 'tif-1bit.tif',
  'webp-lossy.webp', 'webp-lossless.webp', 'jpeg-progressive.jpeg', 'jpg-cmyk.jpg', 'png-rgba.png', 'png-16bit.png',
];
const UNSUPPORTED = [
  'bmp-8bit-palette-color.bmp', 'bmp-32bit-alpha.bmp', 'bmp-rle-compressed.bmp', 'tif-16bit-rgb.tif', 'tif-multipage.tif', 'tif-cmyk.tif', 'tif-rgba.tif', 'tif-palette.tif',
];

interface Embedded {
  input: Buffer;
  info: ImageInfo;
  out: EmbedResult;
}

async function expectCode(p: Promise<unknown>, code: WatermarkErrorCode): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(WatermarkError);
  await expect(p).rejects.toMatchObject({ code });
}

describe('format rules (corpus variants)', () => {
  const id = 0x0123456789abcdefn;
  // every supported file is embedded once; the cases below check the outputs
  const embedded = new Map<string, Embedded>();
  beforeAll(async () => {
    for (const file of SUPPORTED) {
      const input = read(`formats/${file}`);
      embedded.set(file, { input, info: await inspectImage(input), out: await embedImage(input, id, { key }) });
    }
  });
  const get = (file: string): Embedded => {
    const e = embedded.get(file);
    if (!e) throw new Error(`not embedded: ${file}`);
    return e;
  };

  it.each(SUPPORTED)('%s embeds, keeps format and size, and extracts', async (file) => {
    const { input, info, out } = get(file);
    expect(out.format).toBe(info.format);
    expect([out.width, out.height]).toEqual([info.width, info.height]);
    const again = await inspectImage(out.data);
    expect(again.format).toBe(info.format);
    if (file.includes('1bit') || file.includes('gray')) expect(again.channels).toBe(1);
    const res = await extractImage(out.data, input, { key });
    expect(res.status).toBe('detected');
    expect(res.payload).toBe(id);
  });

  it('large baseline JPEGs are encoded in joined strips (restart markers) and stay detectable; gray stays gray', async () => {
    // a >= 2 MP baseline JPEG (the corpus' 4 MP kite photo is not in the repository): astronaut upscaled
    const photo = await sharp(read('photos/astronaut.jpg')).resize(2048, 1280, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    const gray = await sharp(photo).toColourspace('b-w').jpeg({ quality: 85 }).toBuffer();
    const smallGray = await sharp(photo).resize(800).toColourspace('b-w').jpeg({ quality: 85 }).toBuffer();
    for (const [input, striped] of [[photo, true], [gray, true], [smallGray, false]] as const) {
      const out = await embedImage(input, id, { key });
      expect(out.data.includes(Buffer.from([0xff, 0xdd]))).toBe(striped);
      const [before, after] = await Promise.all([sharp(input).metadata(), sharp(out.data).metadata()]);
      expect([after.width, after.height, after.channels, after.isProgressive]).toEqual([before.width, before.height, before.channels, false]);
      // the joined file is about the size of an optimised encode at the same quality
      const single = await sharp(out.data).jpeg({ quality: 85 }).toBuffer();
      if (input !== photo) expect(Math.abs(out.data.length / single.length - 1)).toBeLessThan(0.05);
      const res = await extractImage(out.data, input, { key });
      expect([res.status, res.payload]).toEqual(['detected', id]);
    }
  });

  it('a progressive JPEG stays progressive (encoded in one call)', async () => {
    const { out } = get('jpeg-progressive.jpeg');
    expect((await sharp(out.data).metadata()).isProgressive).toBe(true);
    expect(out.data.includes(Buffer.from([0xff, 0xdd]))).toBe(false);
  });

  it('keeps the alpha channel untouched', async () => {
    const { input, out } = get('png-rgba.png');
    const a = await sharp(input).extractChannel(3).raw().toBuffer();
    const b = await sharp(out.data).extractChannel(3).raw().toBuffer();
    expect(a.equals(b)).toBe(true);
  });

  it.each(UNSUPPORTED)('%s is refused with UNSUPPORTED_COLOR_MODE and extract says unsupported', async (file) => {
    const input = read(`formats/${file}`);
    await expectCode(embedImage(input, 1n, { key }), WatermarkErrorCode.UNSUPPORTED_COLOR_MODE);
    const res = await extractImage(input, null, { key });
    expect(res.status).toBe('unsupported');
  });

  it.each(['truncated.jpg', 'not-an-image.png', 'empty.jpg'])('broken %s: embed CORRUPT_IMAGE/UNSUPPORTED_FORMAT, extract unsupported', async (file) => {
    const input = await broken(file);
    await expect(embedImage(input, 1n, { key })).rejects.toBeInstanceOf(WatermarkError);
    const err = await embedImage(input, 1n, { key }).catch((e: unknown) => e);
    expect([WatermarkErrorCode.CORRUPT_IMAGE, WatermarkErrorCode.UNSUPPORTED_FORMAT]).toContain((err as WatermarkError).code);
    if (file !== 'not-an-image.png') expect((err as WatermarkError).code).toBe(WatermarkErrorCode.CORRUPT_IMAGE);
    expect((await extractImage(input, null, { key })).status).toBe('unsupported');
  });

  // Outside review: a broken original was `error`, which the API keeps for a failure of detection itself; an
  // unreadable original is input out of range like an unreadable copy
  describe('a broken original with a sound inspected copy is unsupported, not error', () => {
    const cases: Array<[string, () => Promise<Buffer>]> = [
      ['a truncated JPEG', () => broken('truncated.jpg')],
      ['a zero-byte file', () => broken('empty.jpg')],
      ['a truncated PNG', async () => {
        const png = await astronautPng();
        return png.subarray(0, png.length >> 1);
      }],
    ];
    it.each(cases)('%s', async (_name, make) => {
      const original = await make();
      expect((await extractImage(textPng(), original, { key })).status).toBe('unsupported');
      expect((await extractImage(await astronautPng(), original, { key, diagnostics: true })).status).toBe('unsupported');
    });
  });

  // the original and the inspected copy are decoded side by side: either failing ends the extraction cleanly
  it('a corrupt original with a corrupt copy, or a corrupt copy with a sound original, is unsupported', async () => {
    const truncated = await broken('truncated.jpg');
    expect((await extractImage(truncated, truncated, { key })).status).toBe('unsupported');
    expect((await extractImage(truncated, textPng(), { key })).status).toBe('unsupported');
  });

  it('sniffs content, not the extension (PNG named .jpg stays PNG)', async () => {
    const input = await broken('wrong-extension-really-png.jpg');
    const out = await embedImage(input, 5n, { key });
    expect(out.format).toBe('png');
    expect((await sharp(out.data).metadata()).format).toBe('png');
  });

  it('refuses pixel bombs before decoding and honours maxPixels', async () => {
    const bomb = pngBomb();
    await expectCode(embedImage(bomb, 1n, { key }), WatermarkErrorCode.TOO_MANY_PIXELS);
    await expectCode(inspectImage(bomb), WatermarkErrorCode.TOO_MANY_PIXELS);
    expect((await extractImage(bomb, null, { key })).status).toBe('unsupported');
    await expectCode(embedImage(textPng(), 1n, { key, maxPixels: 1000 }), WatermarkErrorCode.TOO_MANY_PIXELS);
  });

  it('BMP reader/writer round-trips 24-bit, 8-bit gray and 1-bit files', () => {
    for (const f of ['bmp-24bit-rgb.bmp', 'bmp-8bit-gray.bmp', 'bmp-1bit.bmp']) {
      const buf = read(`formats/${f}`);
      const img = readBmp(buf);
      const out = writeBmp(img.header, img.width, img.height, img.channels, img.data);
      const back = readBmp(out);
      expect(parseBmpHeader(out).bpp).toBe(img.header.bpp);
      expect(Buffer.from(back.data).equals(Buffer.from(img.data))).toBe(true);
    }
  });
});
