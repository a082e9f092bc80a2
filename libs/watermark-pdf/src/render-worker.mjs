// PDF page renderer for @cp/watermark-pdf, run in a child process (or a worker thread) by @cp/bounded-worker.
// pdf.js (pdfjs-dist, Apache-2.0) is ESM-only: a worker thread loads it with a native dynamic import(),
// independent of how the calling code is compiled (CommonJS, Jest's module registry, ...).
// Documents: every request names its document (`docId`); the bytes come with the first request for it (`data`)
// and are kept for the next ones (the last two documents), so a file is copied to this process once, not once per
// batch of pages. A request for a document this worker does not hold (a new worker) answers { id, ok: false,
// missing: true } and is sent again with its bytes.
// Protocol: { id, op: 'render', docId, data?: Uint8Array, pages: number[] (0-based), dpi: number, maxPixels: number }
//        -> { id, ok: true, numPages, pages: [{ index, width, height, dpi, rgba: Uint8Array, transform: number[6],
//              view: number[4], rotate: number }] }
//         | { id, ok: false, error: { name, message, password: boolean } }
//           { id, op: 'info', data } -> { id, ok: true, numPages, pages: [{ index, view, rotate }] }
//           { id, op: 'check', docId, data?, maxPages, limits: { inflation, parse } }
//        -> { id, ok: true, numPages } | { id, ok: false, refusal: { code, message } } (a PdfWatermarkError's)
// `check` is the library's checked parse (validate.ts: structure, inflation, pdf-lib within its object and byte
// budgets, encryption, page count, JPEG 2000 sizes), here rather than in the service: refusing a hostile file takes
// pdf-lib seconds of one thread and hundreds of MB, which in the service held its event loop (health checks, NATS
// heartbeats, other jobs) for as long.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// the same relative place in the sources and in dist/ (tools/build.mjs copies every .mjs)
import { workerPort } from '../../bounded-worker/src/worker-port.mjs';

const port = workerPort();

const require = createRequire(import.meta.url);
const pdfjsRoot = dirname(require.resolve('pdfjs-dist/package.json'));
const standardFontDataUrl = join(pdfjsRoot, 'standard_fonts') + '/';
const cMapUrl = join(pdfjsRoot, 'cmaps') + '/';
const wasmUrl = join(pdfjsRoot, 'wasm') + '/';

const here = dirname(fileURLToPath(import.meta.url));
let validation = null;
/**
 * The library's validate module: compiled beside this file in dist/ (tools/build.mjs), TypeScript in the sources
 * (services run there under tools/register.js, tests under Jest; a forked child has neither: the same hook is loaded
 * here, once, when a first file is checked).
 */
function validationModule() {
  if (validation) return validation;
  const compiled = join(here, 'validate.js');
  if (existsSync(compiled)) {
    validation = { ...require(compiled), ...require(join(here, 'limits.js')), ...require(join(here, 'errors.js')) };
  } else {
    // a path built in parts: Nx reads a whole relative path as a dependency of this library on the tools project
    require(join(here, '..', '..', '..', 'tools', 'register.js'));
    validation = { ...require(join(here, 'validate.ts')), ...require(join(here, 'limits.ts')), ...require(join(here, 'errors.ts')) };
  }
  return validation;
}

async function check(msg, bytes) {
  const { configurePdfResources, loadChecked, PdfWatermarkError } = validationModule();
  // the service's limits (its configuration), not this process's defaults
  configurePdfResources({ inflation: msg.limits.inflation, parse: msg.limits.parse });
  try {
    const doc = await loadChecked(bytes, msg.maxPages);
    return { ok: true, numPages: doc.getPageCount() };
  } catch (err) {
    if (err instanceof PdfWatermarkError) return { ok: false, refusal: { code: err.code, message: err.message } };
    throw err;
  }
}

let pdfjsPromise = null;
function pdfjs() {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

const KEPT_DOCUMENTS = 2;
const documents = new Map();

/** The request's document bytes (kept from an earlier request when it brings none), or null when unknown here. */
function documentOf(msg) {
  if (msg.data) {
    documents.delete(msg.docId);
    documents.set(msg.docId, msg.data);
    while (documents.size > KEPT_DOCUMENTS) documents.delete(documents.keys().next().value);
    return msg.data;
  }
  return documents.get(msg.docId) ?? null;
}

async function open(bytes) {
  const lib = await pdfjs();
  // A copy for pdf.js (which may take over the array it is given), as a plain Uint8Array: the IPC channel
  // delivers a Node Buffer, which pdf.js refuses.
  const data = new Uint8Array(bytes.byteLength);
  data.set(bytes);
  const task = lib.getDocument({
    data,
    standardFontDataUrl,
    cMapUrl,
    cMapPacked: true,
    wasmUrl,
    isEvalSupported: false,
    stopAtErrors: true,
    verbosity: 0,
    useSystemFonts: false,
  });
  return task.promise;
}

function pageGeometry(page) {
  return { view: Array.from(page.view), rotate: page.rotate };
}

async function render(msg, bytes) {
  const doc = await open(bytes);
  try {
    const out = [];
    for (const index of msg.pages) {
      const page = await doc.getPage(index + 1);
      const base = page.getViewport({ scale: 1 });
      let dpi = msg.dpi;
      const px = (base.width * dpi / 72) * (base.height * dpi / 72);
      if (px > msg.maxPixels) dpi = dpi * Math.sqrt(msg.maxPixels / px);
      const viewport = page.getViewport({ scale: dpi / 72 });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      const canvasAndContext = doc.canvasFactory.create(width, height);
      const ctx = canvasAndContext.context;
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, width, height);
      await page.render({ canvas: canvasAndContext.canvas, canvasContext: ctx, viewport, background: 'rgb(255,255,255)' }).promise;
      const img = ctx.getImageData(0, 0, width, height);
      const rgba = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength).slice();
      doc.canvasFactory.destroy(canvasAndContext);
      out.push({ index, width, height, dpi, rgba, transform: Array.from(viewport.transform), ...pageGeometry(page) });
      page.cleanup();
    }
    return { numPages: doc.numPages, pages: out };
  } finally {
    await doc.destroy();
  }
}

async function info(msg, bytes) {
  const doc = await open(bytes);
  try {
    const pages = [];
    for (let i = 0; i < doc.numPages; i++) {
      const page = await doc.getPage(i + 1);
      pages.push({ index: i, ...pageGeometry(page) });
    }
    return { numPages: doc.numPages, pages };
  } finally {
    await doc.destroy();
  }
}

async function text(msg, bytes) {
  const doc = await open(bytes);
  try {
    const pages = [];
    for (let i = 0; i < doc.numPages; i++) {
      const page = await doc.getPage(i + 1);
      const content = await page.getTextContent();
      pages.push(content.items.map((it) => ('str' in it ? it.str : '')).join(' '));
    }
    return { numPages: doc.numPages, text: pages };
  } finally {
    await doc.destroy();
  }
}

port.onMessage(async (msg) => {
  const bytes = documentOf(msg);
  if (!bytes) {
    port.post({ id: msg.id, ok: false, missing: true });
    return;
  }
  try {
    if (msg.op === 'check') {
      port.post({ id: msg.id, ...(await check(msg, bytes)) });
      return;
    }
    const result = msg.op === 'render' ? await render(msg, bytes) : msg.op === 'text' ? await text(msg, bytes) : await info(msg, bytes);
    const transfer = msg.op === 'render' ? result.pages.map((p) => p.rgba.buffer) : [];
    port.post({ id: msg.id, ok: true, ...result }, transfer);
  } catch (err) {
    const e = err ?? {};
    port.post({
      id: msg.id,
      ok: false,
      error: { name: String(e.name ?? 'Error'), message: String(e.message ?? e), password: e.name === 'PasswordException' },
    });
  }
});
