/* The event loop of the process that embeds and extracts (the watermark-processor's) while hostile PDFs are refused:
 * the longest block seen by a 1 ms interval ticker, the wall time and the outcome of each case, one process for all
 * cases (as the processor runs them), best and worst of RUNS. The hostile files are generated here, as the library's
 * tests make them; an ordinary file of the corpus (../shared/corpus/pdfs, never copied) is embedded for comparison.
 * Usage: node -r ./tools/register.js tools/bench-watermark-pdf/event-loop.ts [checkout root, default this one] [runs, default 3]
 * (another root, e.g. a worktree of an older commit, measures that code the same way: before and after). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(process.argv[2] ?? path.join(__dirname, '../..'));
const RUNS = Number(process.argv[3] ?? 3);
const CORPUS = path.join(__dirname, '../../../shared/corpus/pdfs');

interface Library {
  embedPdf: (pdf: Buffer, payload: bigint, options: { key: { secret: string; version: 'v3' } }) => Promise<Buffer>;
  extractPdf: (inspected: Buffer, original: Buffer, options: { key: { secret: string; version: 'v3' } }) => Promise<{ status: string }>;
  closePdfRenderer: () => Promise<void>;
}
interface Hostile {
  objectStreamArrayPdf: (count: number, element?: string) => Buffer;
  pdfFile: (objects: ReadonlyArray<{ n: number; body: string }>) => Buffer;
}

/** Runs `work` with a 1 ms ticker: the longest gap between ticks beyond its period, the wall time, the outcome. */
async function measured(work: () => Promise<string>): Promise<{ blockMs: number; wallMs: number; outcome: string }> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  const started = performance.now();
  const outcome = await work().catch((error: { code?: string; message?: string }) => `${error.code ?? 'error'}`);
  const wallMs = performance.now() - started;
  clearInterval(ticker);
  longest = Math.max(longest, performance.now() - last - 1);
  return { blockMs: longest, wallMs, outcome };
}

async function main(): Promise<void> {
  const at = (...parts: string[]): string => path.join(ROOT, ...parts);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require(at('libs', 'watermark-pdf', 'src', 'index')) as Library;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hostile = require(at('libs', 'watermark-pdf', 'testing')) as Hostile;
  const key = { secret: 'bench-secret', version: 'v3' as const };
  const longToken = hostile.pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /S (${'a'.repeat(20 * 1024 * 1024)}) >>` },
  ]);
  const cases: Array<[string, Buffer]> = [
    ['15 M empty dictionaries in an object stream', hostile.objectStreamArrayPdf(15_000_000, '<<>>')],
    ['30 M numbers in an object stream', hostile.objectStreamArrayPdf(30_000_000)],
    ['one 20 MB string', longToken],
  ];
  const ordinary = path.join(CORPUS, 'text-6-pages.pdf');
  if (existsSync(ordinary)) cases.push(['ordinary: text-6-pages.pdf (corpus)', readFileSync(ordinary)]);
  console.log(`root ${ROOT}, ${RUNS} runs; longest event-loop block / wall time (min–max), outcome`);
  console.log('| file | bytes | embed block ms | embed wall ms | extract block ms | outcome (embed / extract) |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, pdf] of cases) {
    const embeds = [];
    const extracts = [];
    for (let run = 0; run < RUNS; run++) {
      embeds.push(await measured(async () => `${(await lib.embedPdf(pdf, 12345n, { key })).length} B`));
      extracts.push(await measured(async () => (await lib.extractPdf(pdf, pdf, { key })).status));
    }
    const span = (values: number[]): string => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
    console.log(
      `| ${name} | ${pdf.length} | ${span(embeds.map((m) => m.blockMs))} | ${span(embeds.map((m) => m.wallMs))} | ${span(extracts.map((m) => m.blockMs))} | ${embeds[0].outcome} / ${extracts[0].outcome} |`,
    );
  }
  await lib.closePdfRenderer();
}

void main();
