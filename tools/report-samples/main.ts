/* Renders the sample pages of docs/report-samples/ (a detection report in en-US, ja-JP and ko-KR) from the reports
 * service's own document builder and renderer, and pdf.js at 80 dpi, so the samples show what the service prints today.
 * Usage: node -r ./tools/register.js tools/report-samples/main.ts [outDir] */
import { ReportLocale } from '@cp/contracts';
import { embedImage, extractImage, ExtractResult, WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, renderPdfPages } from '@cp/watermark-pdf';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { THUMBNAIL_BOX } from '../../apps/reports/src/generation/file-evidence.reader';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { closePdfRenderer as closeReportRenderer, renderPdf } from '../../apps/reports/src/rendering/pdf-renderer';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { buildReportDocument, ReportDocumentData } from '../../apps/reports/src/rendering/report-document';

const DPI = 80;

interface SampleFiles {
  original: Buffer;
  inspected: Buffer;
  /** What the engine found in the inspected copy, with the original: the report's result is the engine's own. */
  found: ExtractResult;
}

const KEY: WatermarkKey = { secret: 'report-samples', version: 'v3' };

/**
 * The original: a photo of the repository's fixtures; the inspected copy: its marked output turned by 12° (white
 * canvas), scaled to 90 %, JPEG 80; the result: the engine's extraction of that copy with the original.
 */
async function sampleFiles(): Promise<SampleFiles> {
  const original = readFileSync(join(__dirname, '../../e2e/fixtures/photos/rocket.jpg'));
  const marked = (await embedImage(original, 42n, { key: KEY })).data;
  const { width = 0 } = await sharp(marked).metadata();
  const turned = await sharp(marked).rotate(12, { background: '#ffffff' }).png().toBuffer();
  const inspected = await sharp(turned).resize({ width: Math.round(width * 0.9) }).jpeg({ quality: 80 }).toBuffer();
  const found = await extractImage(inspected, original, { key: KEY });
  if (found.status !== 'detected' || found.payload !== 42n) throw new Error(`the sample copy was not detected: ${found.status}`);
  return { original, inspected, found };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
/** As the reports service makes them (`FileEvidenceReader`): within its thumbnail box, PNG. */
const thumbnail = (bytes: Buffer): Promise<Buffer> => sharp(bytes).resize({ ...THUMBNAIL_BOX, fit: 'inside' }).png().toBuffer();

async function sample(locale: ReportLocale, files: SampleFiles): Promise<ReportDocumentData> {
  return {
    locale,
    orderId: '9876543210',
    orderName: 'extract-9876543210',
    mode: 'live',
    createdAt: '2026-11-20T10:00:00.000Z',
    completedAt: '2026-11-20T10:01:00.000Z',
    expiresAt: '2026-12-20T10:00:00.000Z',
    detectionStatus: 'detected',
    watermarkText: 'recipient-0042',
    confidence: files.found.confidence,
    method: files.found.method,
    // a single recipient's copy: no colluders to name (the service maps accused payloads to issuances)
    evidence: files.found.evidence ? { ...files.found.evidence, colluders: undefined } : null,
    original: { role: 'original', fileName: 'rocket.jpg', size: files.original.length, sha256: sha256(files.original), thumbnailPng: await thumbnail(files.original), replaced: false },
    inspected: { role: 'inspected', fileName: 'found-online.jpg', size: files.inspected.length, sha256: sha256(files.inspected), thumbnailPng: await thumbnail(files.inspected), replaced: false },
    issuer: 'Content Protection Platform — Reports Service',
    generatedAt: new Date('2026-11-30T08:00:00.000Z'),
    reportReference: `RPT-9876543210-${locale}-1`,
  };
}

async function main(): Promise<void> {
  const out = process.argv[2] ?? join(__dirname, '../../docs/report-samples');
  mkdirSync(out, { recursive: true });
  const wanted: Array<[ReportLocale, number[]]> = [
    ['en-US', [0, 1]],
    ['ja-JP', [0]],
    ['ko-KR', [0]],
  ];
  const files = await sampleFiles();
  for (const [locale, pages] of wanted) {
    const pdf = await renderPdf(buildReportDocument(await sample(locale, files)));
    for (const page of await renderPdfPages(pdf, pages, DPI)) {
      const file = join(out, `detection-report-${locale}-page${page.page + 1}.png`);
      writeFileSync(file, await sharp(page.rgb, { raw: { width: page.width, height: page.height, channels: 3 } }).png({ compressionLevel: 9, palette: true }).toBuffer());
      process.stdout.write(`${file} (${page.width}x${page.height})\n`);
    }
  }
  await Promise.all([closePdfRenderer(), closeReportRenderer()]);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
