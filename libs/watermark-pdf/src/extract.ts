import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { DECODING_ATTEMPTS, DetectionEvidence, DetectionStatus, extractImage, FALSE_MATCH_BOUND, WatermarkKey } from '@cp/watermark';
import { MARK_DPI, MAX_PAGE_PIXELS } from './embed';
import { Gray, grayFromRgb, locateCapture, Location, prepareReference, pyramid, resample } from './locate';
import { paste, resizeRgb, Rgb, rgbaToRgb, rgbToPng, decodeRgb } from './raster';
import { checkedPageCount, isRendererFailure, isRenderOverLimit, RenderBudget, RenderedPage, renderPages } from './render';
import { PdfExtractOptions, PdfExtractResult } from './types';
import { DEFAULT_MAX_PAGES, looksLikePdf } from './validate';

/** Largest capture accepted (pixels). */
export const MAX_CAPTURE_PIXELS = 60_000_000;
/** At most this many image-engine extractions per call (bounds time and the false-positive budget). */
export const MAX_ENGINE_CALLS = 8;

interface RefPage {
  index: number;
  rgb: Rgb;
  png: Buffer;
  gray: Gray;
  /** THUMB_WIDTH-wide thumbnail for pairing pages by similarity (made once per rendering). */
  thumb: Gray;
  /** Hash of the rendering: pages that look the same (a repeated page, a blank page) are tried once. */
  look: string;
}

const THUMB_WIDTH = 96;

/** Renderings of recently used originals (by SHA-256), so repeated extractions against one original render it once. */
const REF_CACHE_SIZE = 2;
export function clearReferenceCache(): void {
  refCache.clear();
}

/** An original's renderings and, once a capture was located against it, its prepared references. */
interface ReferenceEntry {
  refs: RefPage[];
  /** One reference per distinct look, with the index of the page it stands for. */
  prepared?: { pages: number[]; references: ReturnType<typeof prepareReference>[] };
}

const refCache = new Map<string, ReferenceEntry>();

async function cachedRefs(pdf: Buffer, maxPages: number, budget: RenderBudget, signal?: AbortSignal): Promise<ReferenceEntry> {
  const id = `${maxPages}:${createHash('sha256').update(pdf).digest('hex')}`;
  const hit = refCache.get(id);
  if (hit) {
    refCache.delete(id);
    refCache.set(id, hit);
    return hit;
  }
  // the checked parse in the renderer's process (only the page count is needed here: no parse in this one)
  const count = await checkedPageCount(pdf, maxPages, signal, budget);
  const entry = { refs: await renderRefs(pdf, count, budget, signal) };
  refCache.set(id, entry);
  while (refCache.size > REF_CACHE_SIZE) refCache.delete(refCache.keys().next().value as string);
  return entry;
}

interface Attempt {
  status: DetectionStatus;
  payload?: bigint;
  confidence: number;
  page: number;
  evidence?: DetectionEvidence;
}

const rank: Record<DetectionStatus, number> = { detected: 4, inconclusive: 3, not_detected: 2, unsupported: 1, error: 0 };

async function renderRefs(pdf: Buffer, count: number, budget: RenderBudget, signal?: AbortSignal): Promise<RefPage[]> {
  const pages: RenderedPage[] = [];
  for (let start = 0; start < count; start += 8) {
    const idx: number[] = [];
    for (let i = start; i < Math.min(count, start + 8); i++) idx.push(i);
    pages.push(...(await renderPages(pdf, idx, MARK_DPI, MAX_PAGE_PIXELS, signal, budget)));
  }
  const out: RefPage[] = [];
  for (const p of pages) {
    const rgb = rgbaToRgb(p.rgba, p.width, p.height);
    const gray = grayFromRgb(rgb.data, rgb.width, rgb.height);
    out.push({
      index: p.index,
      rgb,
      png: await rgbToPng(rgb),
      gray,
      thumb: resample(pyramid(gray, 8), THUMB_WIDTH / gray.width),
      look: createHash('sha256').update(rgb.data).digest('hex'),
    });
  }
  return out;
}

class Engine {
  calls = 0;
  best: Attempt = { status: 'not_detected', confidence: 0, page: 0 };

  constructor(private readonly key: WatermarkKey) {}

  get exhausted(): boolean {
    return this.calls >= MAX_ENGINE_CALLS;
  }

  /** Runs the image engine once; returns true when detected. */
  async run(inspected: Buffer, ref: RefPage): Promise<boolean> {
    if (this.exhausted) return false;
    this.calls++;
    const r = await extractImage(inspected, ref.png, { key: this.key, maxPixels: MAX_CAPTURE_PIXELS });
    const a: Attempt = { status: r.status, payload: r.payload, confidence: r.confidence, page: ref.index, evidence: r.evidence };
    if (rank[a.status] > rank[this.best.status] || (a.status === this.best.status && a.confidence > this.best.confidence)) {
      this.best = a;
    }
    return r.status === 'detected';
  }

  result(capturedFromImage: boolean): PdfExtractResult {
    const b = this.best;
    // every engine call on this document was a separate chance of a false match: the bound adds up
    const evidence = b.evidence
      ? { ...b.evidence, page: b.page + 1, decodingAttempts: this.calls * DECODING_ATTEMPTS, chanceBound: this.calls * FALSE_MATCH_BOUND }
      : undefined;
    if (b.status === 'detected') {
      return { status: 'detected', payload: b.payload, confidence: b.confidence, page: b.page + 1, capturedFromImage, ...(evidence ? { evidence } : {}) };
    }
    const status: DetectionStatus = b.status === 'inconclusive' ? 'inconclusive' : 'not_detected';
    return { status, confidence: status === 'inconclusive' ? b.confidence : 0, capturedFromImage, ...(evidence && status === 'inconclusive' ? { evidence } : {}) };
  }
}

/** Similarity of two page renderings from their thumbnails (NCC), -1 when the aspect ratios differ. */
function pageSimilarity(a: RefPage, b: RefPage): number {
  if (Math.abs(a.gray.width / a.gray.height / (b.gray.width / b.gray.height) - 1) > 0.03) return -1;
  const w = THUMB_WIDTH;
  const ta = a.thumb;
  const tb = b.thumb;
  const h = Math.min(ta.height, tb.height);
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  const n = w * h;
  for (let i = 0; i < n; i++) {
    const x = ta.data[i];
    const y = tb.data[i];
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  const va = saa - (sa * sa) / n;
  const vb = sbb - (sb * sb) / n;
  if (va < 1e-6 || vb < 1e-6) return va < 1e-6 && vb < 1e-6 ? 1 : 0;
  return (sab - (sa * sb) / n) / Math.sqrt(va * vb);
}

async function extractFromPdf(inspected: Buffer, refs: RefPage[], engine: Engine, maxPages: number, budget: RenderBudget, signal?: AbortSignal): Promise<PdfExtractResult> {
  let count: number;
  try {
    count = await checkedPageCount(inspected, maxPages, signal, budget);
  } catch (err) {
    // the renderer's own failure says nothing about the file: the job tries again
    if (isRendererFailure(err)) throw err;
    return { status: 'unsupported', confidence: 0, capturedFromImage: false };
  }
  let pages: RefPage[];
  try {
    pages = await renderRefs(inspected, count, budget, signal);
  } catch (err) {
    // the renderer's own failure says nothing about the file: the job tries again
    if (isRendererFailure(err)) throw err;
    return { status: 'unsupported', confidence: 0, capturedFromImage: false };
  }
  const pairs: Array<{ i: number; j: number; s: number }> = [];
  for (const p of pages) for (const r of refs) pairs.push({ i: p.index, j: r.index, s: pageSimilarity(p, r) });
  pairs.sort((a, b) => b.s - a.s);
  const tried = new Set<string>();
  for (const pair of pairs) {
    if (pair.s < 0 || engine.exhausted) break;
    // an inspected page against pages that look the same is one attempt
    const id = `${pages[pair.i].look}:${refs[pair.j].look}`;
    if (tried.has(id)) continue;
    tried.add(id);
    if (await engine.run(pages[pair.i].png, refs[pair.j])) break;
  }
  return engine.result(false);
}

/** The capture placed on the original page rendered at the capture's resolution, resampled to the reference grid. */
async function composite(pdf: Buffer, capture: Rgb, loc: Location, ref: RefPage, budget: RenderBudget, signal?: AbortSignal): Promise<Buffer> {
  if (loc.fullPage) return rgbToPng(await resizeRgb(capture, ref.rgb.width, ref.rgb.height));
  const [page] = await renderPages(pdf, [ref.index], loc.dpi, MAX_CAPTURE_PIXELS, signal, budget);
  const canvas = rgbaToRgb(page.rgba, page.width, page.height);
  paste(canvas, capture, Math.round(loc.x), Math.round(loc.y));
  return rgbToPng(await resizeRgb(canvas, ref.rgb.width, ref.rgb.height));
}

async function extractFromCapture(
  inspected: Buffer,
  originalPdf: Buffer,
  entry: ReferenceEntry,
  engine: Engine,
  budget: RenderBudget,
  signal?: AbortSignal,
): Promise<PdfExtractResult> {
  const refs = entry.refs;
  let capture: Rgb;
  try {
    const meta = await sharp(inspected).metadata();
    if (!meta.width || !meta.height || meta.width * meta.height > MAX_CAPTURE_PIXELS) throw new Error('too large');
    capture = await decodeRgb(inspected);
  } catch {
    return { status: 'unsupported', confidence: 0, capturedFromImage: true };
  }
  // pages that look the same (a repeated page, blank pages) are searched once, as their first occurrence
  if (!entry.prepared) {
    const seen = new Set<string>();
    const distinct = refs.filter((r) => !seen.has(r.look) && seen.add(r.look));
    entry.prepared = { pages: distinct.map((r) => r.index), references: distinct.map((r) => prepareReference(r.gray)) };
  }
  const { pages, references } = entry.prepared;
  const locations = locateCapture(grayFromRgb(capture.data, capture.width, capture.height), references, MARK_DPI, 3).map((loc) => ({ ...loc, page: pages[loc.page] }));
  const tried = new Set<string>();
  for (const loc of locations.slice(0, 3)) {
    const id = `${loc.page}:${Math.round(loc.x / 4)}:${Math.round(loc.y / 4)}:${Math.round(loc.dpi / 3)}`;
    if (tried.has(id)) continue;
    tried.add(id);
    if (await engine.run(await composite(originalPdf, capture, loc, refs[loc.page], budget, signal), refs[loc.page])) return engine.result(true);
  }
  // Fallback: the engine's own registration of the raw capture against the best pages.
  const pagesTried = new Set<number>();
  for (const loc of locations) {
    if (pagesTried.has(loc.page) || pagesTried.size >= 2) continue;
    pagesTried.add(loc.page);
    if (await engine.run(inspected, refs[loc.page])) break;
  }
  return engine.result(true);
}

/**
 * Looks for the mark of `key` in `inspected` — a PDF (the marked file, re-saved or re-printed, pages removed or
 * reordered) or an image capture of one page (PNG/JPEG/WebP/TIFF, any resolution, cropped, compressed) — using
 * the unmarked `originalPdf` as reference. Never throws for the files: either of them unreadable (not a PDF,
 * damaged, encrypted, over a limit, pages that render past their CPU budget or the extraction's budget of render
 * time) → `unsupported`; it throws a WorkerFailure when the renderer itself failed (crash, killed, abandoned call,
 * starved by the machine: its deadline reached under its CPU budget), which is worth another attempt. `detected` only when the image engine decodes a payload with a valid keyed tag.
 */
export async function extractPdf(inspected: Buffer, originalPdf: Buffer, options: PdfExtractOptions): Promise<PdfExtractResult> {
  const isPdf = looksLikePdf(inspected);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  // one budget of render time for the whole extraction: the original's pages, the inspected file's, a capture's page
  const budget = new RenderBudget();
  let entry: ReferenceEntry;
  try {
    entry = await cachedRefs(originalPdf, maxPages, budget, options.signal);
  } catch (err) {
    if (isRendererFailure(err)) throw err;
    // the original is input like the inspected file (read the same way below): one that cannot be parsed or rendered
    // is out of range, not a failure of the detection (it was `error` until the outside review)
    return { status: 'unsupported', confidence: 0, capturedFromImage: !isPdf };
  }
  const engine = new Engine(options.key);
  try {
    return await (isPdf
      ? extractFromPdf(inspected, entry.refs, engine, maxPages, budget, options.signal)
      : extractFromCapture(inspected, originalPdf, entry, engine, budget, options.signal));
  } catch (err) {
    // the capture's page rendered past what is left of the budget: the files' doing, as for the pages above
    if (isRenderOverLimit(err)) return { status: 'unsupported', confidence: 0, capturedFromImage: !isPdf };
    throw err;
  }
}
