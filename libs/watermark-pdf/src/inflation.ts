import { PDFContext, PDFName } from 'pdf-lib';
import { countInflated, decodeChainWithin, DecodingBudget, FilterStage, FLATE, isBoundedFilter, zlibHeaderOk } from './stream-decoding';

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
/** `>` and PDF white space: NUL, tab, LF, FF, CR, space. */
const KEYWORD_BEFORE = new Set([0x3e, 0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
/** Abbreviated filter names (inline-image style), which pdf.js accepts in streams too. */
const ABBREVIATIONS: Record<string, string> = { Fl: 'FlateDecode', LZW: 'LZWDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode', RL: 'RunLengthDecode' };
/** How far a /Filter value is read: a chain of a few names (a longer one is cut there, never scanned on). */
const FILTER_VALUE_MAX = 128;

interface StreamCandidate {
  /** The bytes between the previous candidate's data and this `stream` keyword: the stream's dictionary is in it. */
  dictionary: string;
  /** Where the data starts for pdf-lib (after the keyword's end of line) and for pdf.js (at the next line). */
  starts: number[];
  /** The first `endstream` after the data (the file's end when there is none). */
  end: number;
}

/**
 * Every place a parser could take for the start of a stream's data: each `stream` keyword (not `endstream`) after
 * a `>` or white space. The data of pdf-lib starts after the keyword's end of line, if any; pdf.js skips to the next
 * line. The dictionary is looked for in everything since the previous candidate's data, so no text inside it (an
 * `obj` in a key, a fake object header in a string) can hide the /Filter from the scan.
 */
function* streamCandidates(pdf: Buffer): Generator<StreamCandidate> {
  let from = 0;
  let windowStart = 0;
  for (;;) {
    const at = pdf.indexOf(STREAM, from);
    if (at < 0) return;
    from = at + STREAM.length;
    const isEndstream = at >= 3 && pdf[at - 3] === 0x65 && pdf[at - 2] === 0x6e && pdf[at - 1] === 0x64;
    if (isEndstream || (at > 0 && !KEYWORD_BEFORE.has(pdf[at - 1]))) continue;
    let start = at + STREAM.length;
    if (pdf[start] === 0x0d && pdf[start + 1] === 0x0a) start += 2;
    else if (pdf[start] === 0x0a || pdf[start] === 0x0d) start += 1;
    let nextLine = at + STREAM.length;
    while (nextLine < pdf.length && pdf[nextLine] !== 0x0a && pdf[nextLine] !== 0x0d) nextLine++;
    if (pdf[nextLine] === 0x0d && pdf[nextLine + 1] === 0x0a) nextLine += 2;
    else if (nextLine < pdf.length) nextLine += 1;
    const endAt = pdf.indexOf(ENDSTREAM, start);
    const end = endAt < 0 ? pdf.length : endAt;
    yield { dictionary: pdf.toString('latin1', windowStart, at), starts: nextLine === start ? [start] : [start, nextLine], end };
    windowStart = Math.max(windowStart, end);
  }
}

/** A name's #xx escapes decoded (`/Flat#65Decode` is `/FlateDecode` to every parser). */
function decodeName(raw: string): string {
  if (!raw.includes('#')) return raw;
  return raw.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Characters that end a name: white space and the delimiters `()<>[]{}/%`. */
const NAME_END = new Uint8Array(256);
for (const c of '\0\t\n\f\r ()<>[]{}/%') NAME_END[c.charCodeAt(0)] = 1;

/** Reads a name at `text[at] === '/'`: its decoded value and where it ends. */
function nameAt(text: string, at: number, limit: number): { name: string; end: number } {
  let end = at + 1;
  while (end < limit && !NAME_END[text.charCodeAt(end) & 0xff]) end++;
  return { name: decodeName(text.slice(at + 1, end)), end };
}

/**
 * The filter chains the /Filter keys of a dictionary text name (names decoded, abbreviations expanded, each chain
 * once): one per key found, since a scan cannot tell which one the parser keeps. Each value is read over at most
 * FILTER_VALUE_MAX characters, and equal values once, so the scan stays linear in the text whatever it holds.
 */
export function filterChains(dictionary: string): string[][] {
  const values = new Set<string>();
  for (let at = dictionary.indexOf('/'); at >= 0; at = dictionary.indexOf('/', at + 1)) {
    // a key spelled /Filter, or with an escape (/F#69lter, /#46ilter)
    const first = dictionary.charCodeAt(at + 1);
    if (first !== 0x46 && first !== 0x23) continue;
    const key = nameAt(dictionary, at, Math.min(dictionary.length, at + 64));
    if (key.name === 'Filter') values.add(dictionary.slice(key.end, key.end + FILTER_VALUE_MAX));
  }
  const chains = new Map<string, string[]>();
  for (const value of values) {
    const chain = filterValue(value).map((name) => ABBREVIATIONS[name] ?? name);
    if (chain.length > 0) chains.set(chain.join(' '), chain);
  }
  return [...chains.values()];
}

/** The names of a /Filter value: one name, or the names of an array (up to its `]` or the text's end). */
function filterValue(text: string): string[] {
  let i = 0;
  while (i < text.length && WHITE.has(text.charCodeAt(i))) i++;
  if (text[i] === '/') return [nameAt(text, i, text.length).name];
  const names: string[] = [];
  if (text[i] !== '[') return names;
  for (i++; i < text.length && text[i] !== ']'; ) {
    if (text[i] === '/') {
      const value = nameAt(text, i, text.length);
      names.push(value.name);
      i = value.end;
    } else i++;
  }
  return names;
}

/**
 * Chains (of the filters this module bounds) that start with ASCIIHex, ASCII85, LZW or RunLength: a FlateDecode
 * first is found by its zlib header.
 */
function otherChains(dictionary: string): FilterStage[][] {
  const out: FilterStage[][] = [];
  for (const chain of filterChains(dictionary)) {
    // pdf.js passes a stream through a filter it does not know and applies the next ones
    const stages = chain.map((name) => ({ name: PDFName.of(name) })).filter((stage) => isBoundedFilter(stage.name));
    if (stages.length > 0 && stages[0].name !== FLATE) out.push(stages);
  }
  return out;
}

/** Yields to the event loop every this many bytes of scanned text, so a large file never holds it for long. */
const YIELD_EVERY = 4 * 1024 * 1024;

/**
 * Refuses a PDF whose streams decode past the budget, before pdf.js decodes them (in its own process, with a
 * deadline) or pdf-lib parses the file (whose own decoding is held to the same budget as it parses:
 * bounded-parse.ts). A few KiB can inflate to gigabytes.
 * - Every stream candidate is inflated wherever its data holds a zlib header, whatever its dictionary says (a
 *   dictionary the scan misreads cannot hide a FlateDecode stream); the count runs past the first `endstream`
 *   (zlib stops at the stream's own end), so a `/Length` beyond an `endstream` inside the data does not cut it.
 *   Memory stays at one inflate window a level (the output is counted again while it is itself a zlib stream, a
 *   deflated deflate bomb). Damaged data ends a count where it is, as a sniffed header on data that is not deflate
 *   is no reason to refuse a file.
 * - Chains that start with ASCIIHex, ASCII85, LZW or RunLength are decoded as the dictionary text names them (up to
 *   the first `endstream`), with pdf-lib's decoders, within the budget.
 * What it cannot see: a stream inside a compressed object stream (the format forbids one; pdf-lib's parse refuses it,
 * bounded-parse.ts), and filters given by reference (pdf-lib's own decoding is bounded at parse time).
 */
export async function checkInflation(pdf: Uint8Array, limits: InflationLimits = DEFAULT_INFLATION_LIMITS): Promise<void> {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const budget = new DecodingBudget(inflationBudget(buf.length, limits), buf.length);
  const context = PDFContext.create();
  let sinceYield = 0;
  for (const candidate of streamCandidates(buf)) {
    sinceYield += candidate.dictionary.length;
    if (sinceYield > YIELD_EVERY) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const start of candidate.starts) {
      const data = buf.subarray(start);
      if (zlibHeaderOk(data)) budget.spend(await countInflated(data, budget));
    }
    for (const chain of otherChains(candidate.dictionary)) {
      const data = buf.subarray(candidate.starts[0], candidate.end);
      decodeChainWithin(chain, data, context, budget);
    }
  }
}
