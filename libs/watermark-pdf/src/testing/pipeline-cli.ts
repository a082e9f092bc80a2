/**
 * Test helper, run as a child process by watermark-pdf.spec.ts: the image engine runs ~25x slower inside Jest's
 * sandbox than in plain Node, so the embed/extract pipeline runs here and the spec asserts on its JSON output.
 * Usage: node -r ./tools/register.js libs/watermark-pdf/src/testing/pipeline-cli.ts <original.pdf> <marked-out.pdf>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import type { WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, PdfExtractResult, renderPdfPages } from '../index';

export const SPEC_KEY: WatermarkKey = { secret: 'spec-secret', version: 'v3' };
export const SPEC_PAYLOAD = 0x0123456789abcdefn;

type Summary = Omit<PdfExtractResult, 'payload'> & { payload?: string };
const summary = (r: PdfExtractResult): Summary => ({ ...r, payload: r.payload?.toString(16) });

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
  };
  await closePdfRenderer();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e));
  process.exit(1);
});
