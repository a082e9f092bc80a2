import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Text of every page of a PDF, extracted with pdf.js (pdfjs-dist, legacy build). pdf.js is ESM-only and Jest
 * runs tests in a VM without native dynamic import, so it runs in a worker thread that imports it natively.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  try {
    const pdfjs = await import(workerData.pdfjsUrl);
    const doc = await pdfjs.getDocument({ data: workerData.data, isEvalSupported: false, verbosity: 0, useSystemFonts: false }).promise;
    const pages = [];
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\\n' : '') : '')).join(''));
      page.cleanup();
    }
    const meta = await doc.getMetadata();
    await doc.destroy();
    parentPort.postMessage({ ok: true, pages, info: meta.info });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error && error.stack || error) });
  }
})();
`;

export interface PdfText {
  pages: string[];
  /** All pages, joined by newlines. */
  text: string;
  /** The document information dictionary (Title, Author, ...). */
  info: Record<string, unknown>;
}

type WorkerReply = { ok: true; pages: string[]; info: Record<string, unknown> } | { ok: false; error: string };

export async function pdfText(pdf: Buffer): Promise<PdfText> {
  const pdfjsUrl = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  const data = new Uint8Array(pdf);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pdfjsUrl, data } });
  try {
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      worker.once('message', (message: WorkerReply) => resolve(message));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`pdf.js worker exited with ${code}`)));
    });
    if (!reply.ok) {
      throw new Error(`pdf.js could not read the PDF: ${reply.error}`);
    }
    return { pages: reply.pages, text: reply.pages.join('\n'), info: reply.info };
  } finally {
    await worker.terminate();
  }
}

/** Unicode script tests for the report languages. */
export const SCRIPTS = {
  hangul: /[\uac00-\ud7af]/,
  kana: /[\u3040-\u309f\u30a0-\u30ff]/,
  kanji: /[\u4e00-\u9fff]/,
};
