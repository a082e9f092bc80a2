/* Watermark speed alone: the 12 MP line of main.ts with more repetitions, for comparing two checkouts in separate
 * processes (run it alternately in each; comparing two versions inside one process favours the one the script also
 * imports, docs/benchmarks.md). Prints one line, writes bench-results/watermark-speed.json.
 * Usage: speed.ts [--reps N] (default 15) */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WatermarkKey } from '@cp/watermark';
import { measureSpeed, twelveMegapixels } from './speed-12mp';

const REPS_ARG = process.argv.indexOf('--reps');
const REPS = REPS_ARG > 0 ? Number(process.argv[REPS_ARG + 1]) : 15;
const PHOTO = join(__dirname, '../../../shared/corpus/photos/kite-2560x1600.jpg');
const KEY: WatermarkKey = { secret: 'bench-secret', version: 'v3' };

async function main(): Promise<void> {
  if (!existsSync(PHOTO)) {
    process.stderr.write(`No corpus photo at ${PHOTO}: put the shared benchmark corpus beside the repository as ../shared/corpus.\n`);
    process.exit(2);
  }
  if (!Number.isInteger(REPS) || REPS < 1) {
    process.stderr.write('--reps takes a positive integer\n');
    process.exit(2);
  }
  const { failures, ...best } = await measureSpeed(await twelveMegapixels(readFileSync(PHOTO)), KEY, REPS);
  if (failures > 0) throw new Error(`12 MP extract failed ${failures} times`);
  const result = { reps: REPS, ...best, embedRatio: best.embed / best.plain, extractRatio: best.extract / best.decodeBoth };
  process.stdout.write(
    `Speed 12 MP JPEG (4240x2832), best of ${REPS}: embed ${best.embed.toFixed(1)} ms / plain decode+encode ${best.plain.toFixed(1)} ms = ${result.embedRatio.toFixed(2)}; extract ${best.extract.toFixed(1)} ms / decode both ${best.decodeBoth.toFixed(1)} ms = ${result.extractRatio.toFixed(2)}; medians: embed ${best.median.embed.toFixed(1)} / ${best.median.plain.toFixed(1)}, extract ${best.median.extract.toFixed(1)} / ${best.median.decodeBoth.toFixed(1)} ms\n`,
  );
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(join('bench-results', 'watermark-speed.json'), JSON.stringify(result, null, 2));
}

main().catch((e: unknown) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
  process.exit(1);
});
