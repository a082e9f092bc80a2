import { PDFObjectParser, PDFRef } from 'pdf-lib';
import { constants, deflateSync } from 'node:zlib';
import { loadWithinBudget } from './bounded-parse';
import { PdfWatermarkErrorCode } from './errors';
import { checkInflation, InflationLimits } from './inflation';
import { closePdfRenderer, configurePdfResources, DEFAULT_PDF_RESOURCE_LIMITS, embedPdf, extractPdf, renderPdfPages } from './index';
import { loadChecked } from './validate';
import { OBJECT_STREAM_HEADER, objectStreamArrayPdf, objectStreamContent, objectStreamPdf, pdfFile, zlibWithEndstreamInside } from '../testing';

const MiB = 1024 * 1024;
/** 1 MiB for any file here; every object stream below decodes to 16 MiB. */
const SMALL: InflationLimits = { maxInflatedBytes: MiB, maxInflationRatio: 1, minInflatedBytes: MiB };
const LARGE: InflationLimits = { maxInflatedBytes: 64 * MiB, maxInflationRatio: 1, minInflatedBytes: 64 * MiB };
const OPTIONS = { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: true };
const INFLATED = 16 * MiB;

const content = objectStreamContent(INFLATED);
const deflated = deflateSync(content, { level: 9 });
const hex = (data: Buffer): Buffer => Buffer.from(`${data.toString('hex')}>`, 'latin1');

/** Object streams that name FlateDecode in ways a scan of the raw bytes has misread. */
const VARIANTS: Array<[string, Buffer]> = [
  ['plain /FlateDecode', objectStreamPdf(deflated, '/Filter /FlateDecode')],
  ['a later key containing "obj"', objectStreamPdf(deflated, '/Filter /FlateDecode /Zobj true')],
  ['a #-escaped filter name', objectStreamPdf(deflated, '/Filter /Flat#65Decode')],
  ['ASCIIHexDecode before FlateDecode', objectStreamPdf(hex(deflated), '/Filter [/ASCIIHexDecode /FlateDecode]')],
  ['the filter given by reference', objectStreamPdf(deflated, '/Filter 6 0 R', { 6: '/FlateDecode' })],
  ['a Length past an endstream inside the data', objectStreamPdf(zlibWithEndstreamInside(content, 200), '/Filter /FlateDecode')],
];

describe('pdf-lib parsing within the inflation budget', () => {
  it.each(VARIANTS)('%s: pdf-lib decodes it with a budget that allows it, and refuses it with one that does not', async (_name, pdf) => {
    const doc = await loadWithinBudget(pdf, LARGE, OPTIONS);
    expect(doc.context.lookup(PDFRef.of(5))).toBeDefined();
    await expect(loadWithinBudget(pdf, SMALL, OPTIONS)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('keeps the budgets of concurrent parses apart', async () => {
    const pdf = VARIANTS[0][1];
    const results = await Promise.allSettled([loadWithinBudget(pdf, SMALL, OPTIONS), loadWithinBudget(pdf, LARGE, OPTIONS), loadWithinBudget(pdf, SMALL, OPTIONS)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });

  it('refuses damaged compressed data it cannot bound as DAMAGED (pdf-lib decodes past errors zlib stops at)', async () => {
    const broken = Buffer.from(deflated);
    // the first block's header made invalid (block type 3)
    broken[2] = 0xff;
    broken[3] = 0xff;
    await expect(loadWithinBudget(objectStreamPdf(broken, '/Filter /FlateDecode'), LARGE, OPTIONS)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.DAMAGED });
  });
});

describe('objects pdf-lib builds while it parses (in the calling process)', () => {
  afterEach(() => {
    configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
  });

  it('refuses a few KB of object stream that holds millions of objects (RESOURCE_LIMIT), within the inflation budget', async () => {
    // 2.1 million numbers in an object stream of about 4 KB (4.2 MB inflated): 30 million took the heap to 1.7 GB
    const pdf = objectStreamArrayPdf(2_100_000);
    expect(pdf.length).toBeLessThan(16 * 1024);
    await expect(checkInflation(pdf)).resolves.toBeUndefined();
    await expect(loadChecked(pdf)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('counts objects outside object streams and in them alike, as configured; a file under the limit loads', async () => {
    configurePdfResources({ parse: { maxObjects: 20_000 } });
    const plain = pdfFile([
      { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /X [${'<<>>'.repeat(30_000)}] >>` },
    ]);
    await expect(loadChecked(plain)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(loadChecked(objectStreamArrayPdf(30_000, '[]'))).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(loadChecked(objectStreamArrayPdf(10_000))).resolves.toBeDefined();
  });
});

describe('names and strings pdf-lib builds while it parses', () => {
  const withToken = (token: string): Buffer =>
    objectStreamPdf(deflateSync(Buffer.from(`${OBJECT_STREAM_HEADER}<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /X ${token} >>`, 'latin1'), { level: 9 }), '/Filter /FlateDecode');

  it.each([
    ['a name', (n: number): string => `/${'a'.repeat(n)}`],
    ['a literal string', (n: number): string => `(${'a'.repeat(n)})`],
    ['a hex string', (n: number): string => `<${'a'.repeat(n)}>`],
  ])('refuses %s of 9 MiB in a few KB (RESOURCE_LIMIT) before pdf-lib reads it (20 MB took its heap to 640 MB)', async (_name, token) => {
    const pdf = withToken(token(9 * MiB));
    expect(pdf.length).toBeLessThan(16 * 1024);
    await expect(loadChecked(pdf)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('reads tokens as pdf-lib does: nested and escaped parentheses, names up to a delimiter; ordinary tokens load', async () => {
    const doc = await loadChecked(withToken('[(a (b) \\) c\\(d) /Name#20x<414243>]'));
    expect(doc.getPageCount()).toBe(1);
  });
});

const PAGE_OF_STREAM_TEST = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 6 0 R >>\n';

/** A page whose content stream lies inside an object stream. */
function streamInObjectStreamPdf(): Buffer {
  const page = PAGE_OF_STREAM_TEST;
  const data = deflateSync(Buffer.from('0 0 1 rg 10 10 50 50 re f'));
  const header = `5 0 6 ${page.length} `;
  const content = Buffer.concat([Buffer.from(header + page + `<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  return pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [5 0 R] /Count 1 >>' },
    { n: 4, dictionary: `/Type /ObjStm /N 2 /First ${header.length} /Filter /FlateDecode`, data: deflateSync(content) },
  ], 7);
}

describe('a stream inside an object stream (which the format forbids; pdf-lib and pdf.js accept it)', () => {
  it('is refused as DAMAGED while pdf-lib parses (the inflation pre-scan never sees its data: 2.8 KB inflated 1.4 GB in the renderer)', async () => {
    const pdf = streamInObjectStreamPdf();
    await expect(loadChecked(pdf)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.DAMAGED });
    // the same objects outside the object stream load
    await expect(loadChecked(objectStreamPdf(deflateSync(Buffer.from(`${OBJECT_STREAM_HEADER}${PAGE_OF_STREAM_TEST}`, 'latin1')), '/Filter /FlateDecode'))).resolves.toBeDefined();
  });
});

describe('the inflation pre-scan', () => {
  it.each(VARIANTS.filter(([name]) => name !== 'the filter given by reference'))('%s: refused before any parser opens the file', async (_name, pdf) => {
    await expect(checkInflation(pdf, SMALL)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('a FlateDecode stream is counted whatever its dictionary says, with no end of line or a NUL before the keyword', async () => {
    const variants = [
      objectStreamPdf(deflated, '/Filter /FlateDecode /X (1 0 obj) /Filter /None'),
      Buffer.from(objectStreamPdf(deflated, '/Filter /FlateDecode').toString('latin1').replace('>>\nstream\n', '>>\0stream'), 'latin1'),
    ];
    for (const pdf of variants) await expect(checkInflation(pdf, SMALL)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(checkInflation(variants[0], LARGE)).resolves.toBeUndefined();
  });

  it('reads each /Filter value over a bounded stretch of text', async () => {
    const text = `<< /Filter [${' /FlateDecode'.repeat(100)}] >>`;
    const chain = (await import('./inflation')).filterChains(text)[0];
    expect(chain.length).toBeGreaterThan(3);
    expect(chain.length).toBeLessThan(20);
  });
});

describe('valid files the pre-scan lets through (found by a review)', () => {
  afterAll(async () => {
    await closePdfRenderer();
  });

  const page = (contents: string): Array<{ n: number; body: string }> => [
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] ${contents} >>` },
  ];

  it('an unfiltered image whose first two pixels read as a zlib header (the data is not deflate)', async () => {
    const pixels = Buffer.alloc(64 * 64);
    for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + 11) & 0xff;
    pixels[0] = 0x78;
    pixels[1] = 0x5e;
    const file = pdfFile([
      ...page('/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R'),
      { n: 4, dictionary: '', data: Buffer.from('q 100 0 0 100 50 50 cm /Im0 Do Q') },
      { n: 5, dictionary: '/Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceGray /BitsPerComponent 8', data: pixels },
    ]);
    await expect(checkInflation(file)).resolves.toBeUndefined();
    await expect(renderPdfPages(file, [0], 24)).resolves.toHaveLength(1);
  });

  it('a FlateDecode content stream written without a final block (a sync flush, as some producers write)', async () => {
    const content = Buffer.from('q 1 0 0 1 0 0 cm 0 0 1 rg 10 10 100 100 re f Q\n'.repeat(20));
    const file = pdfFile([...page('/Contents 4 0 R'), { n: 4, dictionary: '/Filter /FlateDecode', data: deflateSync(content, { finishFlush: constants.Z_SYNC_FLUSH }) }]);
    await expect(checkInflation(file)).resolves.toBeUndefined();
    await expect(loadChecked(file)).resolves.toBeDefined();
    await expect(renderPdfPages(file, [0], 24)).resolves.toHaveLength(1);
  });
});

describe("embed and extract: the checked parse in the renderer's process, not the service's", () => {
  const key = { secret: 'spec-secret', version: 'v3' as const };
  /** A blank page carrying an array of `count` numbers, outside any object stream: pdf.js renders it. */
  const numbersPage = (count: number): Buffer =>
    pdfFile([
      { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /X [${'0 '.repeat(count)}] >>` },
    ]);

  afterEach(() => {
    jest.restoreAllMocks();
    configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
  });

  afterAll(async () => {
    await closePdfRenderer();
  });

  it('refuses a few KB holding millions of objects (RESOURCE_LIMIT / unsupported) without pdf-lib parsing any object here', async () => {
    // pdf-lib took 1.8 s of the service's event loop and 500 MB to refuse 15 million empty dictionaries
    const parsed = jest.spyOn(PDFObjectParser.prototype, 'parseObject');
    const hostile = objectStreamArrayPdf(2_100_000, '<<>>');
    await expect(embedPdf(hostile, 1n, { key })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(extractPdf(hostile, hostile, { key })).resolves.toMatchObject({ status: 'unsupported' });
    expect(parsed).not.toHaveBeenCalled();
    // an accepted file is parsed here for the embed's changes (the spy sees this process's parses)
    await expect(embedPdf(numbersPage(1_000), 1n, { key })).resolves.toBeInstanceOf(Buffer);
    expect(parsed).toHaveBeenCalled();
    // Two parses of two million objects in the renderer: about 10 s alone, and past Jest's 60 s in a fresh-clone CI run
    // (three Jest workers, the fault-injection stack and other files' renderers on two cores). Each renderer call has
    // its own deadline of 120 s (a call past it fails as STARVED, not as a timeout here); the test waits for them.
  }, 240_000);

  it("holds the renderer's parse to the service's configured limits, and answers each refusal with the file's code", async () => {
    configurePdfResources({ parse: { maxObjects: 20_000 } });
    await expect(embedPdf(numbersPage(30_000), 1n, { key })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(embedPdf(numbersPage(10_000), 1n, { key })).resolves.toBeInstanceOf(Buffer);
    // a stream inside an object stream: DAMAGED, as in this process
    await expect(embedPdf(streamInObjectStreamPdf(), 1n, { key })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.DAMAGED });
    await expect(embedPdf(Buffer.from('no pdf here'), 1n, { key })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.NOT_PDF });
    const truncated = objectStreamArrayPdf(10);
    await expect(embedPdf(truncated.subarray(0, truncated.length - 40), 1n, { key })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.DAMAGED });
  });
});
