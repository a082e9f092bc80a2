import { execFile } from 'node:child_process';
import { encryptedPdfFixture } from '@cp/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import type { WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, pdfPageTexts, PdfWatermarkError, PdfWatermarkErrorCode } from './index';

// A page of the corpus' text PDF, committed with the library (see libs/watermark/test-fixtures/README.md).
const CORPUS = resolve(__dirname, '../test-fixtures');
const KEY: WatermarkKey = { secret: 'spec-secret', version: 'v3' };
const PAYLOAD = 0x0123456789abcdefn;

const ROOT = resolve(__dirname, '../../..');
const original = readFileSync(`${CORPUS}/text-1-page.pdf`);
let marked: Buffer;

interface Summary {
  status: string;
  payload?: string;
  confidence: number;
  page?: number;
  capturedFromImage: boolean;
}
interface PipelineOutput {
  psnr: number;
  fromPdf: Summary;
  fromPng150: Summary;
  fromCropJpeg: Summary;
  unmarkedPdf: Summary;
  unmarkedCapture: Summary;
  otherKey: Summary;
  darkPsnr: number;
  darkFromPdf: Summary;
  darkFromCapture: Summary;
}
let pipeline: PipelineOutput;
const HEX = PAYLOAD.toString(16);

const encryptedPdf = encryptedPdfFixture;

async function embedError(pdf: Buffer): Promise<PdfWatermarkErrorCode | 'no error' | 'other error'> {
  try {
    await embedPdf(pdf, PAYLOAD, { key: KEY });
    return 'no error';
  } catch (err) {
    return err instanceof PdfWatermarkError ? err.code : 'other error';
  }
}

// The embed/extract pipeline runs once in plain Node (see testing/pipeline-cli.ts: the image engine is far slower
// inside Jest's sandbox); the tests below assert on its results and on the marked file it wrote. About 27 s of CPU
// (38 s alone on a busy machine, about 95 s while other tests ran): 10 minutes, so that only a hang ends it, not a
// machine giving it less than a fifth of a core (as 2 minutes did).
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wm-pdf-spec-'));
  try {
    const markedPath = join(dir, 'marked.pdf');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', join(ROOT, 'tools/register.js'), join(__dirname, 'testing/pipeline-cli.ts'), `${CORPUS}/text-1-page.pdf`, markedPath],
      { cwd: ROOT, maxBuffer: 1 << 20 },
    );
    pipeline = JSON.parse(stdout) as PipelineOutput;
    marked = readFileSync(markedPath);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);

afterAll(async () => {
  await closePdfRenderer();
});

describe('embedPdf', () => {
  it('keeps page count, page sizes, text and metadata; grows the file by a bounded amount', async () => {
    const before = await PDFDocument.load(original, { updateMetadata: false });
    const after = await PDFDocument.load(marked, { updateMetadata: false });
    expect(after.getPageCount()).toBe(before.getPageCount());
    after.getPages().forEach((p, i) => expect(p.getSize()).toEqual(before.getPage(i).getSize()));
    expect(after.getProducer()).toBe(before.getProducer());
    expect(after.getTitle()).toBe(before.getTitle());
    const textBefore = await pdfPageTexts(original);
    const textAfter = await pdfPageTexts(marked);
    expect(textAfter).toEqual(textBefore);
    expect(textAfter[0]).toContain('Introduction');
    expect(marked.length - original.length).toBeLessThan(Math.max(0.2 * original.length, 200 * 1024 * after.getPageCount()));
  });

  it('keeps a long text document small: every page references one shared mark image', async () => {
    const src = await PDFDocument.load(original);
    const long = await PDFDocument.create();
    for (const p of await long.copyPages(src, Array(12).fill(0) as number[])) long.addPage(p);
    const longPdf = Buffer.from(await long.save({ useObjectStreams: true }));
    const markedLong = await embedPdf(longPdf, PAYLOAD, { key: KEY });
    expect(markedLong.length - longPdf.length).toBeLessThanOrEqual(0.1 * longPdf.length + 50 * 1024);
    const doc = await PDFDocument.load(markedLong);
    const marks = doc.getPages().map((p) => {
      const xobjects = p.node.Resources()?.lookup(PDFName.of('XObject'), PDFDict);
      const mark = xobjects?.entries().find(([name]) => name.decodeText().startsWith('CpWm'));
      return mark?.[1].toString();
    });
    expect(marks).toHaveLength(12);
    expect(marks[0]).toMatch(/^\d+ 0 R$/);
    expect(new Set(marks).size).toBe(1);
  });

  it('gives a dark page a mark of its own that is recovered from the PDF and from a capture', () => {
    expect(pipeline.darkPsnr).toBeGreaterThanOrEqual(40);
    expect(pipeline.darkPsnr).toBeLessThan(60);
    expect(pipeline.darkFromPdf).toMatchObject({ status: 'detected', payload: HEX });
    expect(pipeline.darkFromCapture).toMatchObject({ status: 'detected', payload: HEX });
  });

  it('stays invisible: PSNR of the 150 dpi rendering ≥ 40 dB', () => {
    expect(pipeline.psnr).toBeGreaterThanOrEqual(40);
    expect(pipeline.psnr).toBeLessThan(60); // the mark is there
  });

  it('rejects encrypted, truncated and non-PDF input with typed errors', async () => {
    expect(await embedError(encryptedPdf())).toBe(PdfWatermarkErrorCode.ENCRYPTED);
    expect(await embedError(original.subarray(0, Math.floor(original.length / 2)))).toBe(PdfWatermarkErrorCode.DAMAGED);
    expect(await embedError(Buffer.from('hello, not a pdf'))).toBe(PdfWatermarkErrorCode.NOT_PDF);
    await expect(embedPdf(original, PAYLOAD, { key: KEY, maxPages: 0 })).rejects.toMatchObject({ code: PdfWatermarkErrorCode.TOO_MANY_PAGES });
  });
});

describe('extractPdf', () => {
  it('recovers the payload from the marked PDF itself', () => {
    expect(pipeline.fromPdf).toMatchObject({ status: 'detected', payload: HEX, page: 1, capturedFromImage: false });
  });

  it('recovers the payload from a 150 dpi PNG capture of the page', () => {
    expect(pipeline.fromPng150).toMatchObject({ status: 'detected', payload: HEX, page: 1, capturedFromImage: true });
  });

  it('recovers the payload from a cropped JPEG capture (middle half, 96 dpi, quality 70)', () => {
    expect(pipeline.fromCropJpeg).toMatchObject({ status: 'detected', payload: HEX, page: 1, capturedFromImage: true });
  });

  it('does not detect a mark in the unmarked PDF, an unmarked capture, or with another key', () => {
    expect(pipeline.unmarkedPdf.status).toBe('not_detected');
    expect(pipeline.unmarkedPdf.payload).toBeUndefined();
    expect(pipeline.unmarkedCapture.status).toBe('not_detected');
    expect(pipeline.otherKey.status).not.toBe('detected');
    expect(pipeline.otherKey.payload).toBeUndefined();
  });

  it('reports unsupported inspected files and an unusable original without throwing', async () => {
    expect((await extractPdf(Buffer.from('garbage'), original, { key: KEY })).status).toBe('unsupported');
    // an unreadable original is input out of range too (`error` is a failure of the detection itself)
    expect((await extractPdf(marked, encryptedPdf(), { key: KEY })).status).toBe('unsupported');
    expect((await extractPdf(marked, original.subarray(0, original.length >> 1), { key: KEY })).status).toBe('unsupported');
    expect((await extractPdf(marked, Buffer.alloc(0), { key: KEY })).status).toBe('unsupported');
  });
});
