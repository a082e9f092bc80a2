import { PdfWatermarkErrorCode } from './errors';
import { closePdfRenderer, renderPdfPages } from './index';
import { loadChecked } from './validate';
import { imagePdf, jpxCodestream } from '../testing';

const hex = (data: Buffer): Buffer => Buffer.from(`${data.toString('hex')}>`, 'latin1');

afterAll(async () => {
  await closePdfRenderer();
});

describe('JPEG 2000 images read from their SIZ header before any renderer runs', () => {
  it('refuses a JPX image behind another filter, which pdf.js decodes at full size (870 bytes: 4.1 GB of pdf.js)', async () => {
    const pdf = imagePdf(hex(jpxCodestream(16000, 16000, 1, 0)), 16000, 16000, '/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/ASCIIHexDecode /JPXDecode]');
    expect(pdf.length).toBeLessThan(1024);
    await expect(loadChecked(pdf)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('refuses a JP2 image whose first FF 51 is a decoy in a box before its header (pdf.js sizes its reduction on it: 4.4 GB)', async () => {
    const box = (type: string, ...content: Buffer[]): Buffer => {
      const body = Buffer.concat(content);
      const head = Buffer.alloc(8);
      head.writeUInt32BE(8 + body.length);
      head.write(type, 4, 'latin1');
      return Buffer.concat([head, body]);
    };
    const ihdr = Buffer.alloc(14);
    ihdr.writeUInt32BE(16000, 0);
    ihdr.writeUInt32BE(16000, 4);
    ihdr.writeUInt16BE(1, 8);
    ihdr[10] = 7;
    ihdr[11] = 7;
    const jp2 = Buffer.concat([
      box('jP  ', Buffer.from([0x0d, 0x0a, 0x87, 0x0a])),
      box('ftyp', Buffer.from('jp2 \0\0\0\0jp2 ', 'latin1')),
      // an XML box whose bytes read as a SIZ of 0 × 0
      box('xml ', Buffer.from([0xff, 0x51]), Buffer.alloc(36), Buffer.from([0, 1, 0, 0])),
      box('jp2h', box('ihdr', ihdr), box('colr', Buffer.from([1, 0, 0, 0, 0, 0, 17]))),
      box('jp2c', jpxCodestream(16000, 16000, 1, 0)),
    ]);
    await expect(loadChecked(imagePdf(jp2, 16000, 16000))).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('refuses a JPX image of many components (pdf.js reduces by area, so 64 components of 2048² kept 1.2 GB)', async () => {
    await expect(loadChecked(imagePdf(jpxCodestream(2048, 2048, 64, 0), 2048, 2048))).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('lets through the JPX images pdf.js reduces itself, and small ones anywhere in a chain; pdf.js renders them', async () => {
    const large = imagePdf(jpxCodestream(30000, 30000, 3, 5), 30000, 30000);
    await expect(loadChecked(large)).resolves.toBeDefined();
    const small = imagePdf(hex(jpxCodestream(64, 64, 1, 2)), 64, 64, '/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/ASCIIHexDecode /JPXDecode]');
    await expect(loadChecked(small)).resolves.toBeDefined();
    const [page] = await renderPdfPages(imagePdf(jpxCodestream(64, 64, 1, 2), 64, 64), [0], 24);
    // the flat grey the empty codestream decodes to, drawn over the whole page
    expect(page.rgb[0]).toBeGreaterThan(100);
    expect(page.rgb[0]).toBeLessThan(160);
  });
});
