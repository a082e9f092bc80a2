import { PDFDocument, PDFRawStream, PDFRef } from 'pdf-lib';
import { embedImage, flatMarkField, planMark, WatermarkError, WatermarkKey } from '@cp/watermark';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
import { decodeRgb, deflateBits, deflatePredicted, Rgb, rgbaToRgb, rgbToPng } from './raster';
import { checkedPageCount, isRendererFailure, isRenderOverLimit, RenderBudget, RenderedPage, RenderError, renderPages } from './render';
import { PdfEmbedOptions } from './types';
import { DEFAULT_MAX_PAGES, looksLikePdf, parseAccepted } from './validate';

/** Resolution of the page renderings that carry the mark (also the reference resolution of extraction). */
export const MARK_DPI = 150;
/** Pixel cap per page rendering: huge pages are marked at a lower resolution (A0 at about 100 dpi). */
export const MAX_PAGE_PIXELS = 16_000_000;
/** The overlay image is stored at MARK_DPI / OVERLAY_DOWNSAMPLE (the mark is smooth at that scale). */
export const OVERLAY_DOWNSAMPLE = 2;
/** Target PSNR of the marked page against the unmarked rendering (the benchmark requires ≥ 40 dB). */
export const TARGET_PSNR_DB = 42.5;
const MAX_GAIN = 3;
const PAGES_PER_BATCH = 4;
/** Resolution of the first, cheap rendering of every page: geometry, damage and how light the page is. */
export const PREVIEW_DPI = 24;
/** Pages at least this light (see lightness) carry the shared overlay; darker ones get an overlay of their own. */
export const SHARED_MIN_LIGHTNESS = 0.6;
/**
 * Target PSNR of a white page under the shared overlay. Below TARGET_PSNR_DB: a text page keeps its ink unchanged,
 * so it measures ~0.3 dB higher, and the flat mark has no texture to lean on (crops of a page need the margin).
 */
export const SHARED_TARGET_PSNR_DB = 41.5;
/** Samples of the shared overlay per fine cell of the mark grid, per axis (the mark is bilinear over the cells). */
export const SHARED_SAMPLES_PER_CELL = 2;
const PREVIEW_BATCH = 16;

type Matrix = [number, number, number, number, number, number];

/** PDF matrix product: first m1, then m2. */
function mul(m1: Matrix, m2: Matrix): Matrix {
  const [a, b, c, d, e, f] = m1;
  const [A, B, C, D, E, F] = m2;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

function inv(m: Matrix): Matrix {
  const [a, b, c, d, e, f] = m;
  const det = a * d - b * c;
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
}

/** Overlay of one page: a sign image (black = darken, white = lighten) and its soft mask (how much). */
interface Overlay {
  width: number;
  height: number;
  sign: Uint8Array;
  alpha: Uint8Array;
  gain: number;
}

/**
 * Turns (rendering, marked rendering) into the overlay that reproduces the marked luminance when drawn with
 * normal blending over the page: darkening by α over a value o gives o·(1−α) (black, α = −Δ/o), lightening gives
 * o + (255−o)·α (white, α = Δ/(255−o)). The engine's change Δ is scaled by a gain chosen so the page's PSNR is
 * TARGET_PSNR_DB (the engine aims at ~43 dB before clipping; on white paper half of its pattern clips away).
 */
export function buildOverlay(orig: Rgb, marked: Rgb, down: number): Overlay {
  const { width: w, height: h } = orig;
  const n = w * h;
  const o = orig.data;
  const m = marked.data;
  const ow = Math.ceil(w / down);
  const oh = Math.ceil(h / down);
  const cells = ow * oh;
  // Per overlay pixel (a down x down block), least-squares fits of a darkening (change −α·o) and of a
  // lightening (change α·(255−o)) to the engine's per-pixel luminance change Δ; keep the better one.
  const sDo = new Float64Array(cells); // Σ Δ·o
  const sOo = new Float64Array(cells); // Σ o²
  const sDl = new Float64Array(cells); // Σ Δ·(255−o)
  const sLl = new Float64Array(cells); // Σ (255−o)²
  const colOf = new Int32Array(w);
  for (let x = 0; x < w; x++) colOf[x] = Math.floor(x / down);
  for (let y = 0; y < h; y++) {
    const row = Math.floor(y / down) * ow;
    for (let x = 0, j = y * w * 3; x < w; x++, j += 3) {
      const ol = (o[j] + o[j + 1] + o[j + 2]) / 3;
      const d = (m[j] - o[j] + m[j + 1] - o[j + 1] + m[j + 2] - o[j + 2]) / 3;
      const k = row + colOf[x];
      const l = 255 - ol;
      sDo[k] += d * ol;
      sOo[k] += ol * ol;
      sDl[k] += d * l;
      sLl[k] += l * l;
    }
  }
  const signedAlpha = new Float32Array(cells);
  for (let k = 0; k < cells; k++) {
    const dark = sOo[k] > 0 ? Math.max(0, -sDo[k] / sOo[k]) : 0;
    const light = sLl[k] > 0 ? Math.max(0, sDl[k] / sLl[k]) : 0;
    // Residual reduction of each fit is (Σ Δ·basis)² / Σ basis²; the larger one wins.
    const gDark = dark * dark * sOo[k];
    const gLight = light * light * sLl[k];
    signedAlpha[k] = gDark >= gLight ? -dark : light;
  }
  // Realised mean squared change at gain 1 (per colour channel, over the page), then the gain for TARGET_PSNR_DB.
  let mse1 = 0;
  for (let y = 0; y < h; y++) {
    const row = Math.floor(y / down) * ow;
    for (let x = 0, j = y * w * 3; x < w; x++, j += 3) {
      const s = signedAlpha[row + colOf[x]];
      if (s === 0) continue;
      for (let c = 0; c < 3; c++) {
        const change = s < 0 ? s * o[j + c] : s * (255 - o[j + c]);
        mse1 += change * change;
      }
    }
  }
  mse1 /= n * 3;
  const targetMse = (255 * 255) / 10 ** (TARGET_PSNR_DB / 10);
  const gain = mse1 > 0 ? Math.min(MAX_GAIN, Math.sqrt(targetMse / mse1)) : 1;
  const sign = new Uint8Array(cells);
  const alpha = new Uint8Array(cells);
  for (let k = 0; k < cells; k++) {
    const s = signedAlpha[k] * gain;
    sign[k] = s > 0 ? 1 : 0;
    alpha[k] = Math.min(255, Math.round(Math.abs(s) * 255));
  }
  return { width: ow, height: oh, sign, alpha, gain };
}

/** The overlay as an image XObject (a 1-bit sign image with an 8-bit soft mask), registered once, drawable on many pages. */
function overlayXObject(doc: PDFDocument, ov: Overlay): PDFRef {
  const ctx = doc.context;
  const smask = PDFRawStream.of(
    ctx.obj({
      Type: 'XObject',
      Subtype: 'Image',
      Width: ov.width,
      Height: ov.height,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
      DecodeParms: { Predictor: 15, Colors: 1, BitsPerComponent: 8, Columns: ov.width },
      Interpolate: true,
    }),
    deflatePredicted(ov.alpha, ov.width, ov.height),
  );
  const smaskRef = ctx.register(smask);
  const image = PDFRawStream.of(
    ctx.obj({
      Type: 'XObject',
      Subtype: 'Image',
      Width: ov.width,
      Height: ov.height,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 1,
      Filter: 'FlateDecode',
      Interpolate: true,
      SMask: smaskRef,
    }),
    deflateBits(ov.sign, ov.width, ov.height),
  );
  return ctx.register(image);
}

/**
 * Draws an overlay image last on a page, in the default graphics state, stretched over coverW x coverH device
 * pixels of the page's rendering at `transform` (pdf.js's user space -> device pixels, top-left origin).
 */
function placeOverlay(doc: PDFDocument, pageIndex: number, imageRef: PDFRef, coverW: number, coverH: number, transform: number[]): void {
  const ctx = doc.context;
  const unitToDevice: Matrix = [coverW, 0, 0, -coverH, 0, coverH];
  const cm = mul(unitToDevice, inv(transform as Matrix)).map((v) => (Math.abs(v) < 1e-9 ? '0' : v.toFixed(6).replace(/\.?0+$/, '')));
  const node = doc.getPage(pageIndex).node;
  node.normalize(); // wraps the existing content in q … Q so the overlay starts from the default state
  const name = node.newXObject('CpWm', imageRef);
  const content = ctx.flateStream(`q ${cm.join(' ')} cm ${name.asString()} Do Q\n`);
  node.addContentStream(ctx.register(content));
}

/** A page's size in pixels and its user space -> device transform at the marking resolution, from any rendering of it. */
function markGeometry(p: RenderedPage): { width: number; height: number; transform: number[] } {
  const quarter = p.rotate % 180 !== 0;
  const w = Math.abs(p.view[2] - p.view[0]);
  const h = Math.abs(p.view[3] - p.view[1]);
  const [pw, ph] = quarter ? [h, w] : [w, h];
  let dpi = MARK_DPI;
  const px = ((pw * dpi) / 72) * ((ph * dpi) / 72);
  if (px > MAX_PAGE_PIXELS) dpi *= Math.sqrt(MAX_PAGE_PIXELS / px);
  // pdf.js's viewport transform is linear in the scale: the preview's, scaled
  const k = dpi / p.dpi;
  return { width: Math.max(1, Math.round((pw * dpi) / 72)), height: Math.max(1, Math.round((ph * dpi) / 72)), transform: p.transform.map((v) => v * k) };
}

/** Mean squared relative luminance of a rendering: the share of a darkening mark's energy the page keeps (white = 1). */
function lightness(p: RenderedPage): number {
  const d = p.rgba;
  let sum = 0;
  for (let i = 0; i < d.length; i += 4) {
    const l = (0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]) / 255;
    sum += l * l;
  }
  return sum / (p.width * p.height);
}

/**
 * The shared overlay of a page size: the engine's mark for a flat page, darkening only (paper cannot get
 * lighter), sampled SHARED_SAMPLES_PER_CELL times per fine cell, at SHARED_TARGET_PSNR_DB on white. It depends on the payload, the key and the
 * page's pixel size only, so every page of that size references one XObject: the document grows by one image.
 */
function sharedOverlay(width: number, height: number, payload: bigint, key: WatermarkKey): Overlay {
  const plan = planMark(width, height, payload, key);
  const [fnx, fny] = plan.dims[0];
  const ow = fnx * SHARED_SAMPLES_PER_CELL;
  const oh = fny * SHARED_SAMPLES_PER_CELL;
  const field = flatMarkField(plan, ow, oh);
  let mse1 = 0;
  for (let i = 0; i < field.length; i++) if (field[i] < 0) mse1 += field[i] * field[i];
  mse1 /= field.length;
  const targetMse = (255 * 255) / 10 ** (SHARED_TARGET_PSNR_DB / 10);
  const gain = mse1 > 0 ? Math.min(MAX_GAIN, Math.sqrt(targetMse / mse1)) : 1;
  const alpha = new Uint8Array(field.length);
  // on white paper, darkening by α takes 255·α off: α = −Δ·gain / 255
  for (let i = 0; i < field.length; i++) alpha[i] = field[i] < 0 ? Math.min(255, Math.round(-field[i] * gain)) : 0;
  return { width: ow, height: oh, sign: new Uint8Array(field.length), alpha, gain };
}

/** A failure of the renderer's process (checked parse or rendering) as the file's fault (a PdfWatermarkError), or as it is when the renderer is to blame (retried). */
function renderFailure(err: unknown): Error {
  if (err instanceof PdfWatermarkError) return err;
  if (err instanceof RenderError && err.password) {
    return new PdfWatermarkError(PdfWatermarkErrorCode.ENCRYPTED, 'PDF is encrypted');
  }
  if (isRenderOverLimit(err)) {
    return new PdfWatermarkError(PdfWatermarkErrorCode.RESOURCE_LIMIT, `PDF page needs more memory or time than the renderer gives it: ${err.message}`);
  }
  if (isRendererFailure(err)) return err;
  return new PdfWatermarkError(PdfWatermarkErrorCode.DAMAGED, `PDF page cannot be rendered: ${(err as Error).message}`);
}

/**
 * Embeds `payload` into every page of `pdf` as a near-invisible soft-masked image drawn above the page content.
 * Text, fonts, links, page sizes and metadata are kept (pdf-lib rewrite, metadata not updated).
 * Throws PdfWatermarkError (NOT_PDF, ENCRYPTED, DAMAGED, TOO_MANY_PAGES, PAGE_NOT_MARKABLE).
 */
export async function embedPdf(pdf: Buffer, payload: bigint, options: PdfEmbedOptions): Promise<Buffer> {
  if (!looksLikePdf(pdf)) throw new PdfWatermarkError(PdfWatermarkErrorCode.NOT_PDF, 'input is not a PDF');
  const budget = new RenderBudget();
  let count: number;
  try {
    // the checks and pdf-lib's bounded parse in the renderer's process: a hostile file is refused there
    count = await checkedPageCount(pdf, options.maxPages ?? DEFAULT_MAX_PAGES, options.signal, budget);
  } catch (err) {
    throw renderFailure(err);
  }
  let doc: PDFDocument | undefined;
  const shared = new Map<string, PDFRef>();
  const own: number[] = [];
  for (let start = 0; start < count; start += PREVIEW_BATCH) {
    const indices: number[] = [];
    for (let i = start; i < Math.min(count, start + PREVIEW_BATCH); i++) indices.push(i);
    let previews: RenderedPage[];
    try {
      const rendering = renderPages(pdf, indices, PREVIEW_DPI, MAX_PAGE_PIXELS, options.signal, budget);
      // pdf-lib's parse of the accepted file here while the renderer's process draws the first previews
      doc ??= await parseAccepted(pdf).catch(async (err: unknown) => {
        await rendering.catch(() => undefined);
        throw err;
      });
      previews = await rendering;
    } catch (err) {
      throw renderFailure(err);
    }
    for (const p of previews) {
      if (lightness(p) < SHARED_MIN_LIGHTNESS) {
        own.push(p.index);
        continue;
      }
      const g = markGeometry(p);
      const size = `${g.width}x${g.height}`;
      let ref = shared.get(size);
      if (!ref) {
        ref = overlayXObject(doc, sharedOverlay(g.width, g.height, payload, options.key));
        shared.set(size, ref);
      }
      placeOverlay(doc, p.index, ref, g.width, g.height, g.transform);
    }
  }
  // parsed with the first batch of previews (the check refuses a file without pages)
  const parsed = doc ?? (await parseAccepted(pdf));
  // dark pages (slides, photos): an overlay fitted to the page's own rendering, which may also lighten
  for (let start = 0; start < own.length; start += PAGES_PER_BATCH) {
    let rendered: RenderedPage[];
    try {
      rendered = await renderPages(pdf, own.slice(start, start + PAGES_PER_BATCH), MARK_DPI, MAX_PAGE_PIXELS, options.signal, budget);
    } catch (err) {
      throw renderFailure(err);
    }
    for (const r of rendered) {
      const orig = rgbaToRgb(r.rgba, r.width, r.height);
      let marked: Rgb;
      try {
        const out = await embedImage(await rgbToPng(orig), payload, { key: options.key, maxPixels: MAX_PAGE_PIXELS * 2 });
        marked = await decodeRgb(out.data);
      } catch (err) {
        if (err instanceof WatermarkError) {
          throw new PdfWatermarkError(PdfWatermarkErrorCode.PAGE_NOT_MARKABLE, `page ${r.index + 1}: ${err.message}`);
        }
        throw err;
      }
      const ov = buildOverlay(orig, marked, OVERLAY_DOWNSAMPLE);
      placeOverlay(parsed, r.index, overlayXObject(parsed, ov), ov.width * OVERLAY_DOWNSAMPLE, ov.height * OVERLAY_DOWNSAMPLE, r.transform);
    }
  }
  const bytes = await parsed.save({ useObjectStreams: true, updateFieldAppearances: false, addDefaultPage: false });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
