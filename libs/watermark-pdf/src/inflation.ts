import { createInflate, Inflate } from 'node:zlib';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';

export interface InflationLimits {
  /** Absolute cap on the bytes all FlateDecode streams of one file may inflate to. */
  maxInflatedBytes: number;
  /** The cap also grows with the file: `ratio × file size`, but never below `minInflatedBytes`. */
  maxInflationRatio: number;
  /** A small file may always inflate to this much (a blank scanned page compresses a thousandfold). */
  minInflatedBytes: number;
}

export const DEFAULT_INFLATION_LIMITS: InflationLimits = {
  maxInflatedBytes: 512 * 1024 * 1024,
  maxInflationRatio: 100,
  minInflatedBytes: 64 * 1024 * 1024,
};

/** The inflated bytes a file of `size` bytes may hold in total. */
export function inflationBudget(size: number, limits: InflationLimits): number {
  return Math.min(limits.maxInflatedBytes, Math.max(limits.minInflatedBytes, size * limits.maxInflationRatio));
}

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
const OBJ = Buffer.from('obj');
/** How far back from `stream` the stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 8192;
/** `>`, space, tab, CR, LF, FF. */
const KEYWORD_BEFORE = new Set([0x3e, 0x20, 0x09, 0x0d, 0x0a, 0x0c]);

/**
 * Where each stream's data lies and how many FlateDecode filters lead its filter chain. The data runs from the
 * end of line after `stream` to the next `endstream` (`/Length` may be an indirect reference; the keyword is
 * what every parser falls back to). Streams whose chain starts with another filter (ASCII85Decode before
 * FlateDecode) are not followed: the render worker's memory limit is the guard behind this one.
 */
function* flateStreams(pdf: Buffer): Generator<{ data: Buffer; stages: number }> {
  let from = 0;
  for (;;) {
    const at = pdf.indexOf(STREAM, from);
    if (at < 0) return;
    from = at + STREAM.length;
    // the keyword stands after the dictionary's `>>` or white space (`endstream` also contains `stream`)
    if (at === 0 || !KEYWORD_BEFORE.has(pdf[at - 1])) continue;
    let start = at + STREAM.length;
    if (pdf[start] === 0x0d && pdf[start + 1] === 0x0a) start += 2;
    else if (pdf[start] === 0x0a || pdf[start] === 0x0d) start += 1;
    else continue;
    const end = pdf.indexOf(ENDSTREAM, start);
    if (end < 0) return;
    from = end + ENDSTREAM.length;
    const windowStart = Math.max(0, at - DICTIONARY_WINDOW);
    const objAt = pdf.subarray(windowStart, at).lastIndexOf(OBJ);
    const dictionary = pdf.toString('latin1', objAt < 0 ? windowStart : windowStart + objAt, at);
    const stages = leadingFlateFilters(dictionary);
    if (stages > 0) yield { data: pdf.subarray(start, end), stages };
  }
}

/** How many `/FlateDecode` filters the stream dictionary's `/Filter` starts with (0 when it does not start with one). */
export function leadingFlateFilters(dictionary: string): number {
  const match = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dictionary);
  if (!match) return 0;
  const names = match[1].match(/\/[A-Za-z0-9]+/g) ?? [];
  let stages = 0;
  for (const name of names) {
    if (name !== '/FlateDecode' && name !== '/Fl') break;
    stages += 1;
  }
  return stages;
}

/**
 * Bytes one stream inflates to, counted as they come out (nothing is kept), stopping as soon as `budget` is
 * passed. Damaged data counts what it gave before the error: that is all a parser would get from it either.
 */
function inflatedSize(data: Buffer, stages: number, budget: number): Promise<number> {
  return new Promise<number>((resolve) => {
    const chain: Inflate[] = [];
    for (let i = 0; i < stages; i++) chain.push(createInflate());
    let total = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      for (const stage of chain) stage.destroy();
      resolve(total);
    };
    for (let i = 0; i < chain.length; i++) {
      chain[i].on('error', finish);
      if (i + 1 < chain.length) chain[i].pipe(chain[i + 1]);
    }
    const last = chain[chain.length - 1];
    last.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > budget) finish();
    });
    last.on('end', finish);
    chain[0].end(data);
  });
}

/**
 * Refuses a PDF whose FlateDecode streams inflate past the budget, before pdf-lib or pdf.js inflate them in
 * memory (a few KiB can inflate to gigabytes). Memory stays at one inflate window whatever the file holds.
 */
export async function checkInflation(pdf: Uint8Array, limits: InflationLimits = DEFAULT_INFLATION_LIMITS): Promise<void> {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const budget = inflationBudget(buf.length, limits);
  let total = 0;
  for (const stream of flateStreams(buf)) {
    total += await inflatedSize(stream.data, stream.stages, budget - total);
    if (total > budget) {
      throw new PdfWatermarkError(
        PdfWatermarkErrorCode.RESOURCE_LIMIT,
        `PDF streams inflate to more than ${budget} bytes (the file has ${buf.length} bytes)`,
      );
    }
  }
}
