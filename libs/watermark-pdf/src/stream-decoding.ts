import { Transform, TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createInflateRaw, inflateRawSync, InflateRaw } from 'node:zlib';
import { decodePDFRawStream, PDFContext, PDFName, PDFObject, PDFRawStream } from 'pdf-lib';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';

/**
 * What decoding one file's streams may still produce, in bytes, shared by all of its streams (the inflation
 * budget, see inflation.ts). Spending past it is a RESOURCE_LIMIT refusal.
 */
export class DecodingBudget {
  private used = 0;

  constructor(
    readonly total: number,
    private readonly fileSize: number,
  ) {}

  get left(): number {
    return Math.max(0, this.total - this.used);
  }

  spend(bytes: number): void {
    this.used += bytes;
    if (this.used > this.total) throw this.exceeded();
  }

  exceeded(): PdfWatermarkError {
    return new PdfWatermarkError(PdfWatermarkErrorCode.RESOURCE_LIMIT, `PDF streams inflate to more than ${this.total} bytes (the file has ${this.fileSize} bytes)`);
  }
}

export const FLATE = PDFName.of('FlateDecode');
/** The filters pdf-lib decodes besides FlateDecode (`decodePDFRawStream`); each of its blocks is small and bounded. */
const BLOCK_BOUNDED = new Set([PDFName.of('LZWDecode'), PDFName.of('ASCII85Decode'), PDFName.of('ASCIIHexDecode'), PDFName.of('RunLengthDecode')]);

/** One filter of a stream's chain and the decode parameters pdf-lib would pass it. */
export interface FilterStage {
  name: PDFName;
  params?: PDFObject;
}

/** True for the filters whose output this module bounds (what pdf-lib decodes; pdf.js decodes these and image codecs). */
export function isBoundedFilter(name: PDFName): boolean {
  return name === FLATE || BLOCK_BOUNDED.has(name);
}

/** pdf-lib's and pdf.js's FlateStream refuse these zlib headers before decoding anything. */
export function zlibHeaderOk(data: Uint8Array): boolean {
  if (data.length < 2) return false;
  const cmf = data[0];
  const flg = data[1];
  return (cmf & 0x0f) === 0x08 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

const damaged = (): PdfWatermarkError => new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'a compressed stream of the PDF is damaged');

const isBufferTooLarge = (err: unknown): boolean => (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';

/**
 * A zlib stream inflated within the budget. The checksum is not checked (pdf-lib and pdf.js do not check it) and a
 * truncated stream gives what it holds. Damaged data is refused: pdf.js's and pdf-lib's decoder go on past errors zlib
 * stops at (a copy from before the start of the output), so what they would make of the rest cannot be bounded.
 */
function inflateWithin(data: Uint8Array, budget: DecodingBudget): Uint8Array {
  let out: Buffer;
  try {
    out = inflateRawSync(data.subarray(2), { maxOutputLength: Math.max(1, budget.left), finishFlush: constants.Z_SYNC_FLUSH });
  } catch (err) {
    if (isBufferTooLarge(err)) throw budget.exceeded();
    throw damaged();
  }
  budget.spend(out.length);
  return out;
}

const CHUNK = 64 * 1024;

/**
 * A stage pdf-lib decodes block by block (LZW: at most 512 codes, ~2 MiB; the others less), run with pdf-lib's own
 * decoder so that its output is exactly pdf-lib's, read a chunk at a time and stopped once the budget is passed.
 * A decoder error ends the output where pdf-lib's would end.
 */
function decodeBlockwise(stage: FilterStage, data: Uint8Array, context: PDFContext, budget: DecodingBudget): Uint8Array {
  const dict = context.obj({});
  dict.set(PDFName.of('Filter'), stage.name);
  if (stage.params) dict.set(PDFName.of('DecodeParms'), stage.params);
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    const stream = decodePDFRawStream(PDFRawStream.of(dict, data));
    for (;;) {
      // pdf-lib types its buffers Uint8Array | Uint8ClampedArray: the same bytes either way
      const chunk = Uint8Array.from(stream.getBytes(CHUNK));
      if (chunk.length === 0) break;
      budget.spend(chunk.length);
      parts.push(chunk);
      size += chunk.length;
    }
  } catch (err) {
    if (err instanceof PdfWatermarkError) throw err;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Decodes a filter chain within the budget, stage by stage, as pdf-lib would (every output counts: each stage's
 * buffer is held while the next one runs). Stops at a filter outside the bounded set (pdf-lib cannot decode it;
 * pdf.js's image codecs are bounded by the render worker) and where a FlateDecode stage's header is not zlib's (both
 * decoders refuse it before decoding). Returns the last output.
 */
export function decodeChainWithin(stages: readonly FilterStage[], data: Uint8Array, context: PDFContext, budget: DecodingBudget): Uint8Array {
  let bytes = data;
  for (const stage of stages) {
    if (stage.name === FLATE) {
      if (!zlibHeaderOk(bytes)) return bytes;
      bytes = inflateWithin(bytes, budget);
    } else if (BLOCK_BOUNDED.has(stage.name)) {
      bytes = decodeBlockwise(stage, bytes, context, budget);
    } else {
      return bytes;
    }
  }
  return bytes;
}

/** A stage's output counted against the budget, passed on minus its zlib header only when it is itself a zlib stream. */
class NestedZlib extends Transform {
  private head = Buffer.alloc(0);
  /** Whether the output is a zlib stream too (known after its first two bytes). */
  private nested: boolean | undefined;

  constructor(private readonly counter: { total: number; budget: DecodingBudget }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.counter.total += chunk.length;
    if (this.counter.total > this.counter.budget.left) {
      callback(this.counter.budget.exceeded());
      return;
    }
    if (this.nested === undefined) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 2) {
        callback();
        return;
      }
      this.nested = zlibHeaderOk(this.head);
      callback(null, this.nested ? this.head.subarray(2) : undefined);
      return;
    }
    callback(null, this.nested ? chunk : undefined);
  }
}

/** One pass over `levels` chained inflates: the bytes they all gave. */
async function countLevels(data: Uint8Array, budget: DecodingBudget, levels: number): Promise<{ total: number }> {
  const counter = { total: 0, budget };
  const stages: NodeJS.ReadWriteStream[] = [];
  for (let level = 0; level < levels; level++) {
    stages.push(createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH }), new NestedZlib(counter));
  }
  (stages[0] as InflateRaw).end(data.subarray(2));
  try {
    await pipeline([...stages, new Writable({ write: (_chunk, _encoding, callback) => callback() })]);
  } catch (err) {
    if (err instanceof PdfWatermarkError) throw err;
  }
  return { total: counter.total };
}

/**
 * One inflate counted through its 'data' events (the cost of the old scan: no stream chain), stopping as soon as the
 * output shows itself a zlib stream too (then `nested`, for the chained pass).
 */
function countOneLevel(data: Uint8Array, budget: DecodingBudget): Promise<{ total: number; nested: boolean }> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH });
    let total = 0;
    let head = Buffer.alloc(0);
    let done = false;
    const finish = (result: { nested: boolean } | PdfWatermarkError): void => {
      if (done) return;
      done = true;
      inflate.destroy();
      if (result instanceof PdfWatermarkError) reject(result);
      else resolve({ total, nested: result.nested });
    };
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > budget.left) {
        finish(budget.exceeded());
        return;
      }
      if (head.length < 2) {
        head = Buffer.concat([head, chunk.subarray(0, 2)]);
        if (head.length >= 2 && zlibHeaderOk(head)) finish({ nested: true });
      }
    });
    inflate.on('error', () => finish({ nested: false }));
    inflate.on('end', () => finish({ nested: false }));
    inflate.end(data.subarray(2));
  });
}

/** Most zlib streams are not nested: one level first, the chain of levels only when the output is zlib too. */
const NESTED_LEVELS = 4;

/**
 * How many bytes a zlib stream inflates to, and its output again while that is a zlib stream too (a deflated
 * deflate bomb; up to NESTED_LEVELS levels), counted as they come out: nothing is kept, memory stays at one inflate
 * window a level. The input may run past the stream's end (zlib stops there). Damaged data ends the count where it
 * is, as the old scan did: a sniffed header on data that is not deflate (an unfiltered image's first bytes), or a
 * stream written without a final block, is no reason to refuse a file. (pdf-lib's own parse-time decoding refuses
 * damaged object streams; pdf.js decodes in its own process, with a heap limit and a deadline.)
 */
export async function countInflated(data: Uint8Array, budget: DecodingBudget): Promise<number> {
  if (!zlibHeaderOk(data)) return 0;
  const once = await countOneLevel(data, budget);
  return once.nested ? (await countLevels(data, budget, NESTED_LEVELS)).total : once.total;
}
