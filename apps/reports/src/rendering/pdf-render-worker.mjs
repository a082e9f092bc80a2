// Report PDF renderer of the reports service, run in a child process by @cp/bounded-worker (pdf-renderer.ts): laying
// out a report of many images and long file-supplied texts holds a thread for a second or more, which must not be the
// service's (its RPCs, health checks and NATS heartbeats would wait).
// Protocol: { id, document: pdfmake definition without functions, footer: ReportFooterData | null,
//             tableLayouts: { [name]: TableLayoutData }, fonts: pdfmake font dictionary (absolute TTF paths) }
//        -> { id, ok: true, pdf: Uint8Array } | { id, ok: false, error: { name, message } }
// (report-layouts.ts describes the data)
import { createRequire } from 'node:module';
// the same relative place in the sources and in dist/ (tools/build.mjs copies every .mjs)
import { workerPort } from '../../../../libs/bounded-worker/src/worker-port.mjs';

const port = workerPort();
const require = createRequire(import.meta.url);
// pdfmake 0.3 in Node: the module is a ready instance (fonts and policies are process-wide).
const pdfmake = require('pdfmake');

let fontFiles = null;

/**
 * Fonts registered once per process; a document may fetch no URL and read no local file but the fonts' (an image
 * or font given by path in a definition would otherwise be read from this machine's disk).
 */
function configure(fonts) {
  if (fontFiles) return;
  const files = new Set();
  for (const faces of Object.values(fonts ?? {})) {
    for (const file of Object.values(faces ?? {})) {
      if (typeof file !== 'string') throw new TypeError('a font file must be a path');
      files.add(file);
    }
  }
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy((file) => files.has(file));
  pdfmake.addFonts(fonts);
  fontFiles = files;
}

const CONSTANT_KEYS = ['vLineWidth', 'hLineColor', 'vLineColor', 'paddingTop', 'paddingBottom', 'paddingLeft', 'paddingRight'];

/** pdfmake's layout functions from a layout's data (TableLayoutData of report-layouts.ts). */
function tableLayout(data) {
  const layout = {};
  for (const key of CONSTANT_KEYS) {
    const value = data?.[key];
    if (typeof value === 'number' || typeof value === 'string') layout[key] = () => value;
  }
  if (typeof data?.hLineWidth === 'number') {
    const inner = data.hLineWidth;
    const outer = typeof data.outerHLineWidth === 'number' ? data.outerHLineWidth : inner;
    layout.hLineWidth = (index, node) => (index === 0 || index === node.table.body.length ? outer : inner);
  }
  return layout;
}

/** pdfmake's footer function from the footer's data (ReportFooterData of report-layouts.ts). */
function footerOf(data) {
  if (!data) return undefined;
  const page = (current, total) => String(data.pageTemplate).replaceAll('{current}', String(current)).replaceAll('{total}', String(total));
  return (currentPage, pageCount) => ({
    columns: [
      { text: String(data.text), style: data.style, fontSize: data.fontSize },
      { text: page(currentPage, pageCount), alignment: 'right', style: data.style, fontSize: data.fontSize },
    ],
    margin: data.margin,
  });
}

async function render(msg) {
  configure(msg.fonts);
  const layouts = Object.fromEntries(Object.entries(msg.tableLayouts ?? {}).map(([name, data]) => [name, tableLayout(data)]));
  // one render at a time in this process: the layouts of this request replace the last one's
  pdfmake.setTableLayouts(layouts);
  const footer = footerOf(msg.footer);
  return pdfmake.createPdf({ ...msg.document, ...(footer ? { footer } : {}) }).getBuffer();
}

port.onMessage(async (msg) => {
  try {
    const pdf = await render(msg);
    port.post({ id: msg.id, ok: true, pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) });
  } catch (err) {
    const e = err ?? {};
    port.post({ id: msg.id, ok: false, error: { name: String(e.name ?? 'Error').slice(0, 200), message: String(e.message ?? e).slice(0, 2000) } });
  }
});
