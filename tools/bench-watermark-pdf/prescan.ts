/* Opening cost of a PDF: the inflation pre-scan (`checkInflation`) and the checked parse (`loadChecked`, pdf-lib with
 * its parse-time budget) on the corpus PDFs; where the code has them, what an embed pays for them now: the checked
 * parse in the renderer's process (`checkedPageCount`: a copy of the bytes sent each run, as each embed sends its file;
 * the process kept warm) and pdf-lib's parse of the accepted file in the service (`parseAccepted`); and the pre-scan on a hostile 4 MiB text of unclosed `/Filter [` arrays
 * (the security review's probe of a quadratic scan). Best of 5 each.
 * Usage: node -r ./tools/register.js tools/bench-watermark-pdf/prescan.ts [checkout root, default this one]
 * (another root, e.g. a worktree of an older commit, measures that code the same way: before and after).
 * Prints a table, writes bench-results/watermark-pdf-prescan.json. Reads ../shared/corpus/pdfs (never copied). */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(process.argv[2] ?? path.join(__dirname, '../..'));
const CORPUS = path.join(__dirname, '../../../shared/corpus/pdfs');
const RUNS = 5;

interface Row {
  file: string;
  bytes: number;
  checkInflationMs: number;
  loadCheckedMs: number | null;
  /** In the renderer's process, from the service's call to its answer. */
  checkedInRendererMs: number | null;
  /** The service's own parse of an accepted file. */
  parseAcceptedMs: number | null;
}

async function bestOf(work: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < RUNS; run++) {
    const started = process.hrtime.bigint();
    // a refusal is an outcome like any other here: the time to reach it is what is measured
    await work().catch(() => undefined);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return best;
}

async function main(): Promise<void> {
  // the code under test is loaded from the root given, so that an older checkout is measured the same way (a path
  // built at run time: a module of this checkout, loaded by name, would be a lazy load of the library to Nx)
  const segments = (...parts: string[]): string => path.join(ROOT, ...parts);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkInflation } = require(segments('libs', 'watermark-pdf', 'src', 'inflation')) as { checkInflation: (pdf: Uint8Array) => Promise<void> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadChecked } = require(segments('libs', 'watermark-pdf', 'src', 'validate')) as { loadChecked: (pdf: Uint8Array) => Promise<unknown> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const render = require(segments('libs', 'watermark-pdf', 'src', 'render')) as { checkedPageCount?: (pdf: Uint8Array, maxPages: number) => Promise<number>; closePdfRenderer: () => Promise<void> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseAccepted } = require(segments('libs', 'watermark-pdf', 'src', 'validate')) as { parseAccepted?: (pdf: Uint8Array) => Promise<unknown> };
  const { checkedPageCount } = render;
  const files: Array<[string, Buffer, boolean]> = readdirSync(CORPUS)
    .filter((file) => file.endsWith('.pdf'))
    .sort()
    .map((file) => [file, readFileSync(path.join(CORPUS, file)), true]);
  const unit = Buffer.from(`${'/Filter ['.repeat(900)} stream\nXendstream\n`, 'latin1');
  files.push(['hostile: 4 MiB of unclosed /Filter [', Buffer.concat([Buffer.from('%PDF-1.7\n', 'latin1'), ...Array<Buffer>(Math.ceil((4 * 1024 * 1024) / unit.length)).fill(unit)]), false]);
  const rows: Row[] = [];
  for (const [file, pdf, parse] of files) {
    rows.push({
      file,
      bytes: pdf.length,
      checkInflationMs: await bestOf(() => checkInflation(pdf)),
      loadCheckedMs: parse ? await bestOf(() => loadChecked(pdf)) : null,
      checkedInRendererMs: parse && checkedPageCount ? await bestOf(() => checkedPageCount(Buffer.from(pdf), 500)) : null,
      parseAcceptedMs: parse && parseAccepted ? await bestOf(() => parseAccepted(pdf)) : null,
    });
  }
  await render.closePdfRenderer();
  const ms = (value: number | null): string => (value === null ? '–' : value.toFixed(1));
  console.log(`root: ${ROOT}`);
  console.log('| file | bytes | checkInflation ms | loadChecked ms | checked in the renderer ms | parseAccepted ms |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.file} | ${row.bytes} | ${ms(row.checkInflationMs)} | ${ms(row.loadCheckedMs)} | ${ms(row.checkedInRendererMs)} | ${ms(row.parseAcceptedMs)} |`);
  mkdirSync('bench-results', { recursive: true });
  writeFileSync('bench-results/watermark-pdf-prescan.json', JSON.stringify({ root: ROOT, runs: RUNS, rows }, null, 2));
}

void main();
