import sharp from 'sharp';
import { checkInput, decodeRaster } from './codec';
import { embedImage, extractImage, inspectImage, WatermarkError, WatermarkErrorCode } from './index';
import { grayTiff, textPng } from './testing/fixtures';

const key = { secret: 'pixel-limit-spec', version: 'v3' as const };

async function expectCode(p: Promise<unknown>, code: WatermarkErrorCode): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(WatermarkError);
  await expect(p).rejects.toMatchObject({ code });
}

/**
 * Attack review: the pixel limit is checked on the header before any decoding (libvips then decodes with no limit of
 * its own), so the header reader must read the size libvips will decode. A TIFF may type ImageWidth/ImageLength as
 * SSHORT or SLONG, which libtiff reads as numbers: the header reader took their first byte (257 read as 1, 65,537 as
 * 1), and an image of billions of pixels in a file of a few KB passed the 100-megapixel check and was decoded whole.
 * libtiff also ignores a repeated tag after its first occurrence, where the reader kept the last one.
 */
describe('the pixel limit holds whatever the header says', () => {
  it('reads SSHORT and SLONG TIFF dimensions as numbers', async () => {
    // 65,537 x 65,537 (4.3 gigapixels): the header says so, nothing is decoded
    const slong = grayTiff(64, 64, [{ tag: 256, type: 9, value: 65_537 }, { tag: 257, type: 9, value: 65_537 }]);
    await expectCode(inspectImage(slong), WatermarkErrorCode.TOO_MANY_PIXELS);
    const sshort = grayTiff(257, 257, [{ tag: 256, type: 8, value: 257 }, { tag: 257, type: 8, value: 257 }]);
    expect((await sharp(sshort).metadata()).width).toBe(257);
    expect(checkInput(sshort, 100_000)).toMatchObject({ width: 257, height: 257 });
    await expectCode(inspectImage(sshort, 1000), WatermarkErrorCode.TOO_MANY_PIXELS);
    await expectCode(embedImage(sshort, 1n, { key, maxPixels: 1000 }), WatermarkErrorCode.TOO_MANY_PIXELS);
    expect((await extractImage(sshort, null, { key, maxPixels: 1000 })).status).toBe('unsupported');
  });

  it('reads a repeated TIFF dimension as libtiff does (the first one)', async () => {
    const repeated = grayTiff(300, 300, [{ tag: 256, type: 4, value: 300 }, { tag: 256, type: 4, value: 1 }, { tag: 257, type: 4, value: 300 }, { tag: 257, type: 4, value: 1 }]);
    expect((await sharp(repeated).metadata()).width).toBe(300);
    await expectCode(inspectImage(repeated, 1000), WatermarkErrorCode.TOO_MANY_PIXELS);
    await expectCode(embedImage(repeated, 1n, { key, maxPixels: 1000 }), WatermarkErrorCode.TOO_MANY_PIXELS);
  });

  it('refuses a dimension of a type libtiff does not read as a number', async () => {
    const rational = grayTiff(64, 64);
    // ImageWidth (the first entry, at 10) typed RATIONAL (5)
    rational.writeUInt16LE(5, 12);
    await expectCode(inspectImage(rational), WatermarkErrorCode.CORRUPT_IMAGE);
  });

  it('never decodes more pixels than the header check approved, whichever header reader is wrong', async () => {
    const png = textPng();
    const header = checkInput(png, 100_000_000);
    await expect(decodeRaster(png, header)).resolves.toMatchObject({ width: header.width, height: header.height });
    await expectCode(decodeRaster(png, { ...header, width: header.width - 1 }), WatermarkErrorCode.CORRUPT_IMAGE);
    const tiff = grayTiff(300, 200);
    await expectCode(decodeRaster(tiff, { ...checkInput(tiff, 100_000_000), height: 100 }), WatermarkErrorCode.CORRUPT_IMAGE);
  });
});
