/**
 * Test helper, run as a child process by watermark-pdf.spec.ts: the image engine runs ~25x slower inside Jest's
 * sandbox than in plain Node, so the embed/extract pipeline runs here and the spec asserts on its JSON output.
 * Usage: node -r ./tools/register.js libs/watermark-pdf/src/testing/pipeline-cli.ts <original.pdf> <marked-out.pdf>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import type { WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, PdfExtractResult, renderPdfPages } from '../index';

export const SPEC_KEY: WatermarkKey = { secret: 'spec-secret', version: 'v3' };
export const SPEC_PAYLOAD = 0x0123456789abcdefn;

type Summary = Omit<PdfExtractResult, 'payload'> & { payload?: string };
const summary = (r: PdfExtractResult): Summary => ({ ...r, payload: r.payload?.toString(16) });

/** A dark slide: near-black background, light text and a grey panel (too dark for the shared darkening overlay). */
async function darkSlide(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([842, 595]);
  page.drawRectangle({ x: 0, y: 0, width: 842, height: 595, color: rgb(0.08, 0.09, 0.12) });
  page.drawRectangle({ x: 480, y: 120, width: 300, height: 340, color: rgb(0.3, 0.32, 0.36) });
  for (let i = 0; i < 12; i++) page.drawText(`Quarterly figures, line ${i + 1}: revenue and margin`, { x: 50, y: 520 - i * 32, size: 16, font, color: rgb(0.92, 0.92, 0.9) });
  return Buffer.from(await doc.save());
}

async function main(): Promise<void> {
  const [originalPath, markedPath] = process.argv.slice(2);
  const original = readFileSync(originalPath);
  const marked = await embedPdf(original, SPEC_PAYLOAD, { key: SPEC_KEY });
  writeFileSync(markedPath, marked);
  const [before] = await renderPdfPages(original, [0], 150);
  const [after] = await renderPdfPages(marked, [0], 150);
  let mse = 0;
  for (let i = 0; i < before.rgb.length; i++) mse += (before.rgb[i] - after.rgb[i]) ** 2;
  const psnr = 10 * Math.log10((255 * 255) / (mse / before.rgb.length));
  const raw = (p: typeof after): ReturnType<typeof sharp> => sharp(p.rgb, { raw: { width: p.width, height: p.height, channels: 3 } });
  const png150 = await raw(after).png().toBuffer();
  const [c96] = await renderPdfPages(marked, [0], 96);
  const cropJpeg = await raw(c96)
    .extract({ left: Math.round(c96.width / 4), top: Math.round(c96.height / 4), width: Math.round(c96.width / 2), height: Math.round(c96.height / 2) })
    .jpeg({ quality: 70 })
    .toBuffer();
  const [u96] = await renderPdfPages(original, [0], 96);
  const out = {
    psnr,
    fromPdf: summary(await extractPdf(marked, original, { key: SPEC_KEY })),
    fromPng150: summary(await extractPdf(png150, original, { key: SPEC_KEY })),
    fromCropJpeg: summary(await extractPdf(cropJpeg, original, { key: SPEC_KEY })),
    unmarkedPdf: summary(await extractPdf(original, original, { key: SPEC_KEY })),
    unmarkedCapture: summary(await extractPdf(await raw(u96).jpeg({ quality: 70 }).toBuffer(), original, { key: SPEC_KEY })),
    otherKey: summary(await extractPdf(marked, original, { key: { secret: 'other', version: 'v3' } })),
    ...(await dark()),
  };
  await closePdfRenderer();
  process.stdout.write(JSON.stringify(out));
}

/** The dark page's own overlay: recovered from the PDF and from a 96 dpi JPEG capture. */
async function dark(): Promise<{ darkPsnr: number; darkFromPdf: Summary; darkFromCapture: Summary }> {
  const original = await darkSlide();
  const marked = await embedPdf(original, SPEC_PAYLOAD, { key: SPEC_KEY });
  const [before] = await renderPdfPages(original, [0], 150);
  const [after] = await renderPdfPages(marked, [0], 150);
  let mse = 0;
  for (let i = 0; i < before.rgb.length; i++) mse += (before.rgb[i] - after.rgb[i]) ** 2;
  const [c96] = await renderPdfPages(marked, [0], 96);
  const capture = await sharp(c96.rgb, { raw: { width: c96.width, height: c96.height, channels: 3 } }).jpeg({ quality: 70 }).toBuffer();
  return {
    darkPsnr: 10 * Math.log10((255 * 255) / (mse / before.rgb.length)),
    darkFromPdf: summary(await extractPdf(marked, original, { key: SPEC_KEY })),
    darkFromCapture: summary(await extractPdf(capture, original, { key: SPEC_KEY })),
  };
}

main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e));
  process.exit(1);
});
