import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** One rendered page: RGBA pixels, top-left origin, plus pdf.js's user-space -> device-pixel transform. */
export interface RenderedPage {
  index: number;
  width: number;
  height: number;
  /** Effective resolution (lower than requested when the pixel cap applied). */
  dpi: number;
  rgba: Uint8Array;
  /** [a b c d e f]: device = (a·x + c·y + e, b·x + d·y + f) for a user-space point (x, y). */
  transform: number[];
  view: number[];
  rotate: number;
}

export interface PageGeometry {
  index: number;
  view: number[];
  rotate: number;
}

export class RenderError extends Error {
  constructor(
    message: string,
    readonly password: boolean,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

interface WorkerReply {
  id: number;
  ok: boolean;
  numPages?: number;
  pages?: unknown[];
  text?: string[];
  error?: { name: string; message: string; password: boolean };
}

type Request =
  | { op: 'render'; data: Uint8Array; pages: number[]; dpi: number; maxPixels: number }
  | { op: 'info'; data: Uint8Array }
  | { op: 'text'; data: Uint8Array };

const IDLE_MS = 5_000;
const WORKER_FILE = join(__dirname, 'render-worker.mjs');

/** One lazily started worker thread running pdf.js; stopped after a few idle seconds, never keeps the process alive. */
class RenderWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();
  private idleTimer: NodeJS.Timeout | null = null;

  call(req: Request): Promise<WorkerReply> {
    const worker = this.ensure();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      // The PDF bytes are copied (structured clone): the caller keeps its buffer.
      worker.postMessage({ id, ...req });
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE);
    worker.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      p.resolve(reply);
      this.settle();
    });
    // Only the current worker's death fails the pending calls: an idle worker being terminated (exit code 1)
    // may report its exit after a new worker has taken new calls, and those calls are not its own.
    worker.on('error', (err: Error) => {
      if (this.worker === worker) this.fail(err);
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.pending.size > 0) this.fail(new Error(`pdf render worker exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private fail(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
    const w = this.worker;
    this.worker = null;
    if (w) void w.terminate();
  }

  private settle(): void {
    if (this.pending.size > 0 || !this.worker) return;
    this.worker.unref();
    this.idleTimer = setTimeout(() => void this.close(), IDLE_MS);
    this.idleTimer.unref();
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const w = this.worker;
    this.worker = null;
    if (w && this.pending.size === 0) await w.terminate();
  }
}

const renderer = new RenderWorker();

/** Stops the pdf.js worker thread now (it also stops by itself after 5 s without work). */
export async function closePdfRenderer(): Promise<void> {
  await renderer.close();
}

function unwrap(reply: WorkerReply): WorkerReply {
  if (!reply.ok) {
    const e = reply.error ?? { name: 'Error', message: 'render failed', password: false };
    throw new RenderError(`${e.name}: ${e.message}`, e.password);
  }
  return reply;
}

/** Renders the given 0-based pages at `dpi` (reduced per page so that width·height ≤ maxPixels). */
export async function renderPages(pdf: Uint8Array, pages: number[], dpi: number, maxPixels: number): Promise<RenderedPage[]> {
  const reply = unwrap(await renderer.call({ op: 'render', data: pdf, pages, dpi, maxPixels }));
  return (reply.pages ?? []) as RenderedPage[];
}

export async function pdfGeometry(pdf: Uint8Array): Promise<{ numPages: number; pages: PageGeometry[] }> {
  const reply = unwrap(await renderer.call({ op: 'info', data: pdf }));
  return { numPages: reply.numPages ?? 0, pages: (reply.pages ?? []) as PageGeometry[] };
}

/** Text of every page as pdf.js extracts it (items joined by spaces). */
export async function pdfPageTexts(pdf: Uint8Array): Promise<string[]> {
  const reply = unwrap(await renderer.call({ op: 'text', data: pdf }));
  return reply.text ?? [];
}

/** A page rendered by pdf.js (white background), as interleaved 8-bit RGB. */
export interface PageImage {
  /** 0-based page index. */
  page: number;
  width: number;
  height: number;
  dpi: number;
  rgb: Buffer;
}

/** Renders pages of a PDF to RGB at `dpi` (same renderer as embedding and extraction), e.g. for previews and checks. */
export async function renderPdfPages(pdf: Buffer, pages: number[], dpi: number, maxPixels = 60_000_000): Promise<PageImage[]> {
  const out = await renderPages(pdf, pages, dpi, maxPixels);
  return out.map((p) => {
    const rgb = Buffer.alloc(p.width * p.height * 3);
    for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
      rgb[j] = p.rgba[i];
      rgb[j + 1] = p.rgba[i + 1];
      rgb[j + 2] = p.rgba[i + 2];
    }
    return { page: p.index, width: p.width, height: p.height, dpi: p.dpi, rgb };
  });
}
