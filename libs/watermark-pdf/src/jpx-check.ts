import { PDFArray, PDFContext, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
import { inflationBudget, InflationLimits } from './inflation';
import { decodeChainWithin, DecodingBudget, FilterStage } from './stream-decoding';

/**
 * Samples (width × height × components) of a JPEG 2000 image that pdf.js may decode at full size. OpenJPEG holds 4
 * bytes a sample and pdf.js converts the result again: a 870-byte PDF declaring 16000 × 16000 took pdf.js to 4.1 GB.
 */
export const MAX_JPX_FULL_SAMPLES = 32 * 1024 * 1024;
/** Components pdf.js's own reduction is trusted with (grey, RGB, CMYK, with or without alpha: at most 4). */
export const MAX_JPX_REDUCED_COMPONENTS = 4;

const JPX = PDFName.of('JPXDecode');

interface JpxSize {
  width: number;
  height: number;
  components: number;
}

/** The SIZ marker segment whose marker (FF 51) starts at `at`, as pdf.js and OpenJPEG read it, or null if cut short. */
function sizAt(data: Uint8Array, at: number): JpxSize | null {
  if (at + 40 > data.length) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // marker, Lsiz, Rsiz, then Xsiz Ysiz XOsiz YOsiz (XTsiz YTsiz XTOsiz YTOsiz skipped), then Csiz
  const width = view.getUint32(at + 6) - view.getUint32(at + 14);
  const height = view.getUint32(at + 10) - view.getUint32(at + 18);
  return { width, height, components: view.getUint16(at + 38) };
}

const samples = (size: JpxSize): number => Math.max(0, size.width) * Math.max(0, size.height) * size.components;
const same = (a: JpxSize, b: JpxSize): boolean => a.width === b.width && a.height === b.height && a.components === b.components;

/**
 * The sizes a JPX stream declares: the one pdf.js reads (the first FF 51 byte pair anywhere, from which it computes
 * how far to reduce the decoding) and the codestreams' own (SIZ right after a start of codestream, FF 4F FF 51, what
 * OpenJPEG decodes).
 */
function declaredSizes(data: Uint8Array): { pdfjs: JpxSize | null; codestreams: JpxSize[] } {
  let pdfjs: JpxSize | null = null;
  const codestreams: JpxSize[] = [];
  for (let at = data.indexOf(0xff); at >= 0 && at + 1 < data.length; at = data.indexOf(0xff, at + 1)) {
    if (data[at + 1] !== 0x51) continue;
    const size = sizAt(data, at);
    if (!size) continue;
    pdfjs ??= size;
    if (at >= 2 && data[at - 2] === 0xff && data[at - 1] === 0x4f) codestreams.push(size);
  }
  return { pdfjs, codestreams };
}

/** The stream's filter chain (names resolved), or [] when it has none or one pdf-lib cannot read. */
function filterNames(stream: PDFRawStream): { stages: FilterStage[]; names: PDFName[] } {
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const params = stream.dict.lookup(PDFName.of('DecodeParms'));
  if (filter instanceof PDFName) return { stages: [{ name: filter, params }], names: [filter] };
  if (!(filter instanceof PDFArray)) return { stages: [], names: [] };
  const stages: FilterStage[] = [];
  for (let index = 0; index < filter.size(); index++) {
    const name = filter.lookup(index);
    if (!(name instanceof PDFName)) break;
    const stageParams = params instanceof PDFArray ? params.lookup(index) : undefined;
    stages.push({ name, params: stageParams });
  }
  return { stages, names: stages.map((stage) => stage.name) };
}

/**
 * Refuses (RESOURCE_LIMIT) a JPEG 2000 image pdf.js would decode past what its renderer can hold, read from the
 * codestream's SIZ header before any renderer runs. pdf.js reduces the decoding of a large JPX image itself (to
 * about 2048 pixels a side in Node, and ~1 GiB of samples anywhere), but only when JPXDecode is the stream's first
 * filter and the size it reads is the codestream's: behind another filter, or with a decoy FF 51 before the real
 * header, it decodes at full size. So a JPX image is let through when pdf.js will reduce it (first filter, one
 * declared size, at most 4 components), or when its full size is at most MAX_JPX_FULL_SAMPLES.
 * Streams are never inside object streams, so pdf-lib's parse holds them all; the filters before JPXDecode are
 * decoded within the file's inflation budget. What it cannot see: a codestream whose header a filter pdf-lib
 * cannot decode hides (pdf.js then decodes it in its process, under the resident watch).
 */
export function checkJpxImages(doc: PDFDocument, fileSize: number, limits: InflationLimits): void {
  const budget = new DecodingBudget(inflationBudget(fileSize, limits), fileSize);
  const context: PDFContext = doc.context;
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const { stages, names } = filterNames(object);
    const jpxAt = names.indexOf(JPX);
    if (jpxAt < 0) continue;
    const data = decodeChainWithin(stages.slice(0, jpxAt), object.contents, context, budget);
    const { pdfjs, codestreams } = declaredSizes(data);
    const sizes = pdfjs ? [pdfjs, ...codestreams] : codestreams;
    const largest = sizes.reduce((max, size) => Math.max(max, samples(size)), 0);
    if (largest <= MAX_JPX_FULL_SAMPLES) continue;
    const reduced = jpxAt === 0 && pdfjs !== null && codestreams.every((size) => same(size, pdfjs)) && pdfjs.components <= MAX_JPX_REDUCED_COMPONENTS;
    if (!reduced) {
      throw new PdfWatermarkError(
        PdfWatermarkErrorCode.RESOURCE_LIMIT,
        `PDF holds a JPEG 2000 image of ${largest} samples that the renderer would decode at full size (limit ${MAX_JPX_FULL_SAMPLES})`,
      );
    }
  }
}
