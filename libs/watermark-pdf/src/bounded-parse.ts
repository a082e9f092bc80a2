import { AsyncLocalStorage } from 'node:async_hooks';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFObject, PDFObjectParser, PDFObjectStreamParser, PDFRawStream, PDFXRefStreamParser } from 'pdf-lib';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
import { DEFAULT_INFLATION_LIMITS, inflationBudget, InflationLimits } from './inflation';
import { decodeChainWithin, DecodingBudget, FilterStage } from './stream-decoding';
// pdf-lib's pools of names and references made weak, for every parse of this process
import './weak-pools';

/**
 * pdf-lib inflates object streams and cross-reference streams while it parses, in the calling process, with its own
 * decoder, which turns a whole deflate block into memory at once: one block of a 1 MiB file can hold a gigabyte.
 * A scan of the raw bytes before parsing cannot be trusted to see the same streams and filters as the parser (a name
 * written with #xx escapes, a filter given by reference, a /Length that runs past an `endstream` inside the data).
 * So the parser itself is asked: pdf-lib hands every such stream to `PDFObjectStreamParser.forStream` or
 * `PDFXRefStreamParser.forStream` (static members read at each call), and this module puts a check in front of
 * both that decodes the stream with its own dictionary's filters, within the file's budget, before pdf-lib does.
 * A stream past the budget is refused; pdf-lib never allocates for it. The budget is the one of the parse under way
 * (an AsyncLocalStorage, so concurrent parses keep theirs apart); a parse outside `parseWithinBudget` gets the
 * smallest budget per stream. A test parses a bomb through pdf-lib and fails if pdf-lib stops calling these members.
 */
interface ParseScope {
  budget: DecodingBudget;
  /** Objects pdf-lib may still build (numbers, names, arrays, dictionaries…: one per `parseObject`). */
  objectsLeft: number;
  maxObjects: number;
  /** Bytes of names and strings pdf-lib may still build (character by character: ~32 bytes of heap each). */
  tokenBytesLeft: number;
  maxTokenBytes: number;
  /** The refusal raised inside pdf-lib, which catches it and reports a parse error of its own instead. */
  refusal?: PdfWatermarkError;
}

const scopes = new AsyncLocalStorage<ParseScope>();

function filterStages(dict: PDFDict): FilterStage[] {
  const filter = dict.lookup(PDFName.of('Filter'));
  const params = dict.lookup(PDFName.of('DecodeParms'));
  if (filter instanceof PDFName) return [{ name: filter, params }];
  if (!(filter instanceof PDFArray)) return []; // none, or a value pdf-lib refuses before decoding
  const stages: FilterStage[] = [];
  for (let index = 0; index < filter.size(); index++) {
    const name = filter.lookup(index);
    // pdf-lib throws at a member that is not a name: nothing after it is decoded
    if (!(name instanceof PDFName)) break;
    const stageParams = params instanceof PDFArray ? params.lookup(index) : undefined;
    stages.push({ name, params: stageParams instanceof PDFDict ? stageParams : undefined });
  }
  return stages;
}

function checkStream(raw: PDFRawStream): void {
  const scope = scopes.getStore();
  const budget = scope?.budget ?? new DecodingBudget(DEFAULT_INFLATION_LIMITS.minInflatedBytes, raw.contents.length);
  try {
    decodeChainWithin(filterStages(raw.dict), raw.contents, raw.dict.context, budget);
  } catch (err) {
    if (err instanceof PdfWatermarkError && scope) scope.refusal = err;
    throw err;
  }
}

/**
 * pdf-lib builds every object it parses in the calling process (a service's), up to ~230 bytes of heap for an empty
 * dictionary written in 4 bytes, and it parses every object of every object stream, referenced or not. The
 * inflation budget bounds the bytes (an object stream of 64 MiB from a 59 KB file), not what they hold: 15 million
 * `<<>>` took the heap to 3.5 GB and held the event loop for 30 s, a plain 60 MB file of numbers to 1.7 GB. So the
 * objects are counted as pdf-lib builds them (a sticky refusal: once over, every later call throws too, whatever
 * pdf-lib catches and retries).
 */
function countObject(): void {
  const scope = scopes.getStore();
  if (!scope) return;
  if (scope.refusal) throw scope.refusal;
  scope.objectsLeft -= 1;
  if (scope.objectsLeft < 0) {
    scope.refusal = new PdfWatermarkError(PdfWatermarkErrorCode.RESOURCE_LIMIT, `PDF holds more than ${scope.maxObjects} objects (numbers, names, arrays, dictionaries…)`);
    throw scope.refusal;
  }
}

/** What the token parsers below read of pdf-lib's parser (a protected member): its byte stream. */
interface TokenParser {
  bytes: { offset(): number; peekAt(offset: number): number | undefined };
}
type TokenParse = (this: TokenParser) => PDFObject;
type TokenKind = 'parseName' | 'parseString' | 'parseHexString';

/** White space and delimiters: where pdf-lib ends a name. */
const NAME_END = new Uint8Array(256);
for (const c of '\0\t\n\f\r ()<>[]{}/%') NAME_END[c.charCodeAt(0)] = 1;

/**
 * The length of the token pdf-lib is about to read, as its parser reads it (a name up to white space or a delimiter,
 * a hex string up to `>`, a literal string up to its balancing `)`), read no further than `max` + 1 bytes.
 */
function tokenLength(kind: TokenKind, parser: TokenParser, max: number): number {
  const bytes = parser.bytes;
  const start = bytes.offset();
  let at = start + 1;
  if (kind === 'parseName') {
    for (let byte = bytes.peekAt(at); byte !== undefined && !NAME_END[byte] && at - start <= max; byte = bytes.peekAt(at)) at++;
  } else if (kind === 'parseHexString') {
    for (let byte = bytes.peekAt(at); byte !== undefined && byte !== 0x3e && at - start <= max; byte = bytes.peekAt(at)) at++;
  } else {
    let nesting = 1;
    let escaped = false;
    for (let byte = bytes.peekAt(at); byte !== undefined && nesting > 0 && at - start <= max; byte = bytes.peekAt(at)) {
      if (!escaped && byte === 0x28) nesting++;
      if (!escaped && byte === 0x29) nesting--;
      escaped = byte === 0x5c ? !escaped : false;
      at++;
    }
  }
  return at - start;
}

/**
 * pdf-lib builds names and strings a character at a time (a string of 20 MB in a 20 KB file: 640 MB of its heap), and
 * keeps every distinct name for the life of the process (`PDFName.of`'s pool). Their bytes are counted before pdf-lib
 * reads them, sticky as for the objects.
 */
function countToken(kind: TokenKind, parser: TokenParser): void {
  const scope = scopes.getStore();
  if (!scope) return;
  if (scope.refusal) throw scope.refusal;
  scope.tokenBytesLeft -= tokenLength(kind, parser, Math.max(0, scope.tokenBytesLeft));
  if (scope.tokenBytesLeft < 0) {
    scope.refusal = new PdfWatermarkError(PdfWatermarkErrorCode.RESOURCE_LIMIT, `PDF holds more than ${scope.maxTokenBytes} bytes of names and strings`);
    throw scope.refusal;
  }
}

function refuseStreamInObjectStream(): void {
  const scope = scopes.getStore();
  if (!scope) return;
  scope.refusal ??= new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, 'PDF has a stream inside an object stream (which the format forbids)');
  throw scope.refusal;
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const objectStream = PDFObjectStreamParser.forStream;
  PDFObjectStreamParser.forStream = (raw, shouldWaitForTick) => {
    checkStream(raw);
    return objectStream(raw, shouldWaitForTick);
  };
  const xrefStream = PDFXRefStreamParser.forStream;
  PDFXRefStreamParser.forStream = (raw) => {
    checkStream(raw);
    return xrefStream(raw);
  };
  // PDFParser and PDFObjectStreamParser inherit it; every element of an array or value of a dictionary is one call.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the parser as `this`
  const parseObject = PDFObjectParser.prototype.parseObject;
  PDFObjectParser.prototype.parseObject = function boundedParseObject(this: PDFObjectParser) {
    countObject();
    return parseObject.call(this);
  };
  // A stream inside an object stream, which the PDF format forbids, and which pdf-lib and pdf.js both accept: the
  // inflation pre-scan reads the object stream's compressed bytes and never sees it (a 2.8 KB file inflated 1.4 GB in
  // the renderer until the resident watch killed it). No producer writes one: refused as DAMAGED.
  // a protected member of pdf-lib's parser
  const dictParsers = PDFObjectParser.prototype as unknown as Record<'parseDictOrStream', (this: PDFObjectParser) => PDFObject>;
  const dictOrStream = dictParsers.parseDictOrStream;
  dictParsers.parseDictOrStream = function boundedDictOrStream(this: PDFObjectParser) {
    const object = dictOrStream.call(this);
    if (object instanceof PDFRawStream && this instanceof PDFObjectStreamParser) refuseStreamInObjectStream();
    return object;
  };
  const tokenParsers = PDFObjectParser.prototype as unknown as Record<TokenKind, TokenParse>;
  for (const kind of ['parseName', 'parseString', 'parseHexString'] as const) {
    const parse = tokenParsers[kind];
    tokenParsers[kind] = function boundedToken(this: TokenParser) {
      countToken(kind, this);
      return parse.call(this);
    };
  }
}

install();

/**
 * Objects one parse may build by default: ~460 MiB of pdf-lib's heap at worst (empty dictionaries), ~110 MiB of
 * numbers. Ordinary files hold far fewer (the 500-page limit's documents: tens of thousands).
 */
export const DEFAULT_MAX_PARSED_OBJECTS = 2_000_000;
/** Bytes of names and strings one parse may build by default: ~256 MiB of pdf-lib's heap at worst. */
export const DEFAULT_MAX_TOKEN_BYTES = 8 * 1024 * 1024;

/**
 * `PDFDocument.load` with every stream pdf-lib decodes while parsing held to the file's inflation budget, and the
 * objects it builds (object streams' included) to `maxObjects`, the bytes of its names and strings to `maxTokenBytes`. Past either (or damaged past what can be bounded) it
 * rejects with that PdfWatermarkError (RESOURCE_LIMIT, DAMAGED), not with pdf-lib's parse error.
 */
export async function loadWithinBudget(
  pdf: Uint8Array,
  limits: InflationLimits,
  options: Parameters<typeof PDFDocument.load>[1],
  { maxObjects = DEFAULT_MAX_PARSED_OBJECTS, maxTokenBytes = DEFAULT_MAX_TOKEN_BYTES }: { maxObjects?: number; maxTokenBytes?: number } = {},
): Promise<PDFDocument> {
  const scope: ParseScope = {
    budget: new DecodingBudget(inflationBudget(pdf.length, limits), pdf.length),
    objectsLeft: maxObjects,
    maxObjects,
    tokenBytesLeft: maxTokenBytes,
    maxTokenBytes,
  };
  try {
    return await scopes.run(scope, () => PDFDocument.load(pdf, options));
  } catch (err) {
    throw scope.refusal ?? err;
  }
}
