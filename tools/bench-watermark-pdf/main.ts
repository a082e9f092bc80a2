/* PDF watermark benchmark: page PSNR, size growth, recovery per attack, false positives, speed.
 * Run from the repository root: node -r ./tools/register.js tools/bench-watermark-pdf/main.ts [--quick]
 * Prints a table, writes bench-results/watermark-pdf.json. Reads the corpus from ../shared/corpus/pdfs beside the repository (never copied). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import type { WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, PdfExtractResult, renderPdfPages } from '@cp/watermark-pdf';

const QUICK = process.argv.includes('--quick');
// The corpus sits beside the repository (../shared), wherever the clone is.
const CORPUS = resolve(__dirname, '../../../shared/corpus/pdfs');
if (!existsSync(CORPUS)) {
  process.stderr.write(`No corpus at ${CORPUS}: put the shared benchmark corpus (pdfs/, photos/, see its README) beside the repository as ../shared/corpus.\n`);
  process.exit(2);
}
const CORPUS_DOCS = ['text-1-page.pdf', 'text-6-pages.pdf', 'raster-2-pages.pdf'];
/** Long text documents, made from the corpus: text-6-pages.pdf's pages repeated (fonts shared, as in a real book). */
const LONG_DOCS: Record<string, number> = { 'text-30-pages.pdf': 30, 'text-100-pages.pdf': 100 };
const DOCS = [...CORPUS_DOCS, ...Object.keys(LONG_DOCS)];
const OUT = 'bench-results';
const KEY: WatermarkKey = { secret: 'bench-secret', version: 'v3' };
const OTHER_KEY: WatermarkKey = { secret: 'another-secret', version: 'v3' };
const PAYLOADS_PER_DOC = QUICK ? 1 : 3;
const CAPTURE_DPIS = [72, 96, 150, 300];

let seed = 0x5eed;
function rnd(): number {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
}
const randomId = (): bigint => (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));

interface Page {
  width: number;
  height: number;
  rgb: Buffer;
}

async function render(pdf: Buffer, pages: number[], dpi: number): Promise<Page[]> {
  const out = await renderPdfPages(pdf, pages, dpi);
  return out.map((p) => ({ width: p.width, height: p.height, rgb: p.rgb }));
}

const rawPng = (p: Page): Promise<Buffer> => sharp(p.rgb, { raw: { width: p.width, height: p.height, channels: 3 } }).png().toBuffer();
const rawJpeg = (p: Page, q: number): Promise<Buffer> =>
  sharp(p.rgb, { raw: { width: p.width, height: p.height, channels: 3 } }).jpeg({ quality: q }).toBuffer();
async function middleHalf(p: Page, fmt: 'png' | 'jpeg'): Promise<Buffer> {
  const img = sharp(p.rgb, { raw: { width: p.width, height: p.height, channels: 3 } }).extract({
    left: Math.round(p.width / 4),
    top: Math.round(p.height / 4),
    width: Math.round(p.width / 2),
    height: Math.round(p.height / 2),
  });
  return fmt === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 70 }).toBuffer();
}

function psnr(a: Buffer, b: Buffer): number {
  let mse = 0;
  for (let i = 0; i < a.length; i++) mse += (a[i] - b[i]) ** 2;
  mse /= a.length;
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

/** "Print to PDF": every page rasterised at 150 dpi (JPEG q85) into a new PDF of the same page sizes. */
async function printToPdf(pdf: Buffer): Promise<Buffer> {
  const src = await PDFDocument.load(pdf);
  const out = await PDFDocument.create();
  const n = src.getPageCount();
  const pages = await render(pdf, [...Array(n).keys()], 150);
  for (let i = 0; i < n; i++) {
    const { width, height } = src.getPage(i).getSize();
    const jpg = await out.embedJpg(await rawJpeg(pages[i], 85));
    out.addPage([width, height]).drawImage(jpg, { x: 0, y: 0, width, height });
  }
  return Buffer.from(await out.save());
}

async function longDocument(pages: number): Promise<Buffer> {
  const src = await PDFDocument.load(readFileSync(join(CORPUS, 'text-6-pages.pdf')));
  const out = await PDFDocument.create();
  // one copyPages call: the copied fonts and resources are shared by all copies of a page
  for (const p of await out.copyPages(src, [...Array(pages).keys()].map((i) => i % src.getPageCount()))) out.addPage(p);
  return Buffer.from(await out.save({ useObjectStreams: true }));
}

async function resaved(pdf: Buffer): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf);
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

/** Keeps the given 0-based pages, in that order. */
async function subset(pdf: Buffer, pages: number[]): Promise<Buffer> {
  const src = await PDFDocument.load(pdf);
  const out = await PDFDocument.create();
  for (const p of await out.copyPages(src, pages)) out.addPage(p);
  return Buffer.from(await out.save());
}

interface Row {
  name: string;
  ok: number;
  total: number;
  ms: number[];
  failures: string[];
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const started = Date.now();
  const rows = new Map<string, Row>();
  const record = (name: string, expected: bigint, r: PdfExtractResult, ms: number, what: string): void => {
    const row = rows.get(name) ?? { name, ok: 0, total: 0, ms: [], failures: [] };
    rows.set(name, row);
    row.total++;
    row.ms.push(ms);
    if (r.status === 'detected' && r.payload === expected) row.ok++;
    else row.failures.push(`${what}: ${r.status}${r.payload !== undefined ? ' wrong payload' : ''} (${r.confidence.toFixed(2)})`);
  };
  const fp = { extractions: 0, detected: 0, inconclusive: 0, byKind: {} as Record<string, number> };
  const negative = (kind: string, r: PdfExtractResult): void => {
    fp.extractions++;
    fp.byKind[kind] = (fp.byKind[kind] ?? 0) + 1;
    if (r.status === 'detected') fp.detected++;
    if (r.status === 'inconclusive') fp.inconclusive++;
  };
  const timed = async (f: () => Promise<PdfExtractResult>): Promise<[PdfExtractResult, number]> => {
    const t = Date.now();
    const r = await f();
    return [r, Date.now() - t];
  };

  const quality: Array<Record<string, unknown>> = [];
  const embedMs: Record<string, number[]> = {};
  const captureMs: number[] = [];

  for (const name of DOCS) {
    const original = LONG_DOCS[name] ? await longDocument(LONG_DOCS[name]) : readFileSync(join(CORPUS, name));
    const n = (await PDFDocument.load(original)).getPageCount();
    const all = [...Array(n).keys()];
    process.stderr.write(`${name}: ${n} pages, ${((Date.now() - started) / 1000).toFixed(0)} s into the run\n`);
    const before = await render(original, all, 150);
    for (let k = 0; k < PAYLOADS_PER_DOC; k++) {
      const payload = randomId();
      const t0 = Date.now();
      const marked = await embedPdf(original, payload, { key: KEY });
      (embedMs[name] ??= []).push(Date.now() - t0);
      const after = await render(marked, all, 150);
      const psnrs = after.map((p, i) => psnr(before[i].rgb, p.rgb));
      const growth = marked.length - original.length;
      quality.push({ doc: name, payload: payload.toString(16), pages: n, bytesBefore: original.length, bytesAfter: marked.length, growthBytes: growth, growthPerPage: Math.round(growth / n), psnr: psnrs });
      const tag = `${name}#${k}`;
      const page = k % n; // the captured page varies with the payload

      let [r, ms] = await timed(() => extractPdf(marked, original, { key: KEY }));
      record('pdf itself', payload, r, ms, tag);
      [r, ms] = await timed(async () => extractPdf(await resaved(marked), original, { key: KEY }));
      record('re-saved (pdf-lib, object streams)', payload, r, ms, tag);
      [r, ms] = await timed(async () => extractPdf(await printToPdf(marked), original, { key: KEY }));
      record('print to PDF (raster 150 dpi, JPEG 85)', payload, r, ms, tag);
      if (n > 1) {
        [r, ms] = await timed(async () => extractPdf(await subset(marked, [n - 1 - page]), original, { key: KEY }));
        record('one page of multi-page PDF', payload, r, ms, `${tag} p${n - page}`);
        [r, ms] = await timed(async () => extractPdf(await subset(marked, all.slice(1).reverse()), original, { key: KEY }));
        record('pages removed + reordered', payload, r, ms, tag);
      }
      for (const dpi of CAPTURE_DPIS) {
        const [cap] = await render(marked, [page], dpi);
        for (const fmt of ['png', 'jpeg70'] as const) {
          const img = fmt === 'png' ? await rawPng(cap) : await rawJpeg(cap, 70);
          [r, ms] = await timed(() => extractPdf(img, original, { key: KEY }));
          record(`capture ${dpi} dpi ${fmt}`, payload, r, ms, `${tag} p${page + 1}`);
          captureMs.push(ms);
        }
      }
      for (const [dpi, fmt] of [[150, 'png'], [96, 'jpeg']] as const) {
        const [cap] = await render(marked, [page], dpi);
        [r, ms] = await timed(async () => extractPdf(await middleHalf(cap, fmt), original, { key: KEY }));
        record(`capture middle half ${dpi} dpi ${fmt === 'png' ? 'png' : 'jpeg70'}`, payload, r, ms, `${tag} p${page + 1}`);
      }
      if (n > 1) {
        const last = n - 1;
        const [cap] = await render(marked, [last], 96);
        [r, ms] = await timed(async () => extractPdf(await rawJpeg(cap, 70), original, { key: KEY }));
        record('capture of last page of multi-page, 96 dpi jpeg70', payload, r, ms, `${tag} p${n}`);
      }
      // other key on the marked file must not detect
      negative('other key, marked pdf', await extractPdf(marked, original, { key: OTHER_KEY }));
      const [capOther] = await render(marked, [page], 96);
      negative('other key, marked capture', await extractPdf(await rawJpeg(capOther, 70), original, { key: OTHER_KEY }));
    }
    // unmarked PDF and captures
    negative('unmarked pdf', await extractPdf(original, original, { key: KEY }));
    negative('unmarked re-saved pdf', await extractPdf(await resaved(original), original, { key: KEY }));
    for (const dpi of QUICK ? [96] : CAPTURE_DPIS) {
      const [cap] = await render(original, [n - 1], dpi);
      negative('unmarked capture png', await extractPdf(await rawPng(cap), original, { key: KEY }));
      negative('unmarked capture jpeg70', await extractPdf(await rawJpeg(cap, 70), original, { key: KEY }));
      negative('unmarked crop', await extractPdf(await middleHalf(cap, 'jpeg'), original, { key: KEY }));
    }
  }
  await closePdfRenderer();

  const lines: string[] = [];
  lines.push(`PDF watermark benchmark (${QUICK ? 'quick' : 'full'}): ${DOCS.length} documents x ${PAYLOADS_PER_DOC} payloads`, '');
  lines.push(
    '| document | pages | size before -> after (growth, per page) | growth limit (10% + 50 KB) | embed ms (per page) | PSNR dB at 150 dpi (min / mean over pages and payloads) |',
    '|---|---|---|---|---|---|',
  );
  for (const name of DOCS) {
    const q = quality.filter((x) => x.doc === name);
    const ps = q.flatMap((x) => x.psnr as number[]);
    const first = q[0];
    const grow = Math.max(...q.map((x) => x.growthBytes as number));
    const pages = first.pages as number;
    const limit = 0.1 * (first.bytesBefore as number) + 50 * 1024;
    // the first embed of the run includes the render worker's start-up
    const embeds = (embedMs[name] ?? []).slice(name === DOCS[0] ? 1 : 0);
    const embed = embeds.length > 0 ? Math.min(...embeds) : (embedMs[name] ?? [0])[0];
    lines.push(
      `| ${name} | ${pages} | ${first.bytesBefore as number} -> ${first.bytesAfter as number} B (max +${(grow / 1024).toFixed(0)} KB = ${((grow / (first.bytesBefore as number)) * 100).toFixed(0)}%, ${(grow / pages / 1024).toFixed(1)} KB/page) | ${grow <= limit ? 'within' : 'OVER'} (${(limit / 1024).toFixed(0)} KB) | ${embed} (${(embed / pages).toFixed(0)}) | ${Math.min(...ps).toFixed(2)} / ${(ps.reduce((a, b) => a + b, 0) / ps.length).toFixed(2)} |`,
    );
  }
  lines.push('', '| attack | exact payload | rate | median ms | failures |', '|---|---|---|---|---|');
  for (const row of rows.values()) {
    const sorted = [...row.ms].sort((a, b) => a - b);
    lines.push(`| ${row.name} | ${row.ok}/${row.total} | ${((row.ok / row.total) * 100).toFixed(1)}% | ${sorted[sorted.length >> 1]} | ${row.failures.join('; ') || '-'} |`);
  }
  const embed6 = embedMs['text-6-pages.pdf'] ?? [];
  const capSorted = [...captureMs].sort((a, b) => a - b);
  lines.push('');
  lines.push(`False positives: ${fp.detected} detected / ${fp.extractions} extractions on unmarked or other-key inputs (${fp.inconclusive} inconclusive); ${JSON.stringify(fp.byKind)}`);
  lines.push(`Embed 6-page PDF: ${embed6.map((x) => `${x} ms`).join(', ')} (first includes worker start-up)`);
  lines.push(`Extract from a page capture (original renderings cached): median ${capSorted[capSorted.length >> 1]} ms, max ${capSorted[capSorted.length - 1]} ms`);
  lines.push(`Total run: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const text = lines.join('\n');
  console.log(text);
  writeFileSync(
    join(OUT, 'watermark-pdf.json'),
    JSON.stringify(
      { quick: QUICK, key: { version: KEY.version }, quality, rows: [...rows.values()], falsePositives: fp, embedMs, captureMs, totalSeconds: (Date.now() - started) / 1000, table: text },
      null,
      2,
    ),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
