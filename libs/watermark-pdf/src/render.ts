import { BoundedWorker, CallUsage, WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { join } from 'node:path';
import { PdfWatermarkError, PdfWatermarkErrorCode } from './errors';
import { checkInflation, InflationLimits } from './inflation';
import { onPdfResourceLimits, pdfResourceLimits, PdfResourceLimits } from './limits';

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
  /** The worker does not hold the document: the request is sent again with its bytes. */
  missing?: boolean;
  numPages?: number;
  pages?: unknown[];
  text?: string[];
  error?: { name: string; message: string; password: boolean };
  /** `check`: the file's refusal by the checked parse (a PdfWatermarkError's code and message). */
  refusal?: { code: PdfWatermarkErrorCode; message: string };
}

type Operation =
  | { op: 'render'; pages: number[]; dpi: number; maxPixels: number }
  | { op: 'info' }
  | { op: 'text' }
  | { op: 'check'; maxPages: number; limits: { inflation: InflationLimits; parse: PdfResourceLimits['parse'] } };
type Request = Operation & { docId: number; data?: Uint8Array };

// A plain ES module loaded by path: the same file runs under ts-node, Jest and the build (copied to dist/).
const WORKER_FILE = join(__dirname, 'render-worker.mjs');

/**
 * pdf.js in a child process: heap-limited, one call at a time, each under a deadline and a CPU budget (a share of it).
 * A call that overruns or runs the heap out rejects with a WorkerFailure and the next call gets a new worker; stopped after a few idle
 * seconds, it never keeps the process alive. A process, not a thread: a file can make pdf.js ask for one array
 * far past the heap limit, which V8 answers by aborting the whole process the thread lives in. The PDF bytes
 * are copied: callers keep theirs.
 */
const renderer = new BoundedWorker<Request, WorkerReply>({
  name: 'pdf-render',
  file: WORKER_FILE,
  isolation: 'process',
  limits: {
    deadlineMs: pdfResourceLimits().render.deadlineMs,
    cpuShare: pdfResourceLimits().render.cpuShare,
    maxOldGenerationSizeMb: pdfResourceLimits().render.maxOldGenerationSizeMb,
    maxResidentMb: pdfResourceLimits().render.maxResidentMb,
  },
  // pdf.js frees its arrays but the pages stay with the process, and OpenJPEG's WebAssembly memory never shrinks: an
  // 18 KB file of 64 JPEG 2000 images left 1.2 GB of the 1.5 GB limit to the next file, whose pages were then killed.
  retireAboveResidentShare: 0.5,
});
onPdfResourceLimits(({ render }) =>
  renderer.configure({ deadlineMs: render.deadlineMs, cpuShare: render.cpuShare, maxOldGenerationSizeMb: render.maxOldGenerationSizeMb, maxResidentMb: render.maxResidentMb }),
);

/**
 * Documents by identity: the calls of one embed or extract pass the same buffer, which the worker keeps after the
 * first call, so a large file crosses to the worker process once. A buffer is not to be changed once rendered.
 */
const documentIds = new WeakMap<Uint8Array, number>();
let nextDocumentId = 1;

/**
 * The render time one embed or extraction may still spend (`documentBudgetMs`), shared by all its calls. A file of
 * many pages, each under the per-call deadline, kept the renderer busy past the job's own deadline, which abandons the
 * attempt as the renderer's trouble and retries it: four times the job's deadline of the processor's slot, for a file
 * that was refunded in the end. As for one call (`deadlineFailure` of @cp/bounded-worker), the file is blamed by the
 * CPU its calls used, not by the time they took: `cpuShare` of the budget is the document's CPU budget, past which the
 * file is refused (DEADLINE); the budget itself is wall time, and reached with the CPU under its budget the renderer
 * waited for the machine (STARVED: the job is retried, the file not refused). Counted as wall time before, so an
 * overloaded machine refused a legitimate large PDF as the file's fault.
 */
export class RenderBudget {
  private wallMs = 0;
  private cpuMs = 0;

  constructor(
    private readonly totalMs: number = pdfResourceLimits().render.documentBudgetMs,
    private readonly cpuShare: number = pdfResourceLimits().render.cpuShare,
  ) {}

  private get cpuBudgetMs(): number {
    return this.totalMs * this.cpuShare;
  }

  /**
   * The next call's deadline (the shorter of `perCallMs` and the wall time left) and CPU budget (the shorter of its own
   * and the CPU left), or a WorkerFailure when nothing is left: DEADLINE (the file's doing) when its CPU is spent,
   * STARVED (the machine's) when only its time is.
   */
  nextCall(perCallMs: number, perCallCpuShare: number): { deadlineMs: number; cpuBudgetMs: number } {
    const cpuLeft = this.cpuBudgetMs - this.cpuMs;
    if (cpuLeft <= 0) {
      throw new WorkerFailure(WorkerFailureCode.DEADLINE, 'pdf-render', `the document's pages used more than ${Math.round(this.cpuBudgetMs)} ms of CPU in all`, this.cpuMs);
    }
    const wallLeft = this.totalMs - this.wallMs;
    if (wallLeft <= 0) {
      throw new WorkerFailure(
        WorkerFailureCode.STARVED,
        'pdf-render',
        `the document's pages took longer than ${this.totalMs} ms in all having used ${Math.round(this.cpuMs)} ms of CPU (budget ${Math.round(this.cpuBudgetMs)} ms): they waited to be run`,
        this.cpuMs,
      );
    }
    return { deadlineMs: Math.min(perCallMs, wallLeft), cpuBudgetMs: Math.min(perCallMs * perCallCpuShare, cpuLeft) };
  }

  /** What one call used; its wall time stands for its CPU when that was not measured (a thread, no /proc). */
  spend(usage: CallUsage): void {
    this.wallMs += usage.wallMs;
    this.cpuMs += usage.cpuMs ?? usage.wallMs;
  }
}

async function callFor(pdf: Uint8Array, operation: Operation, signal?: AbortSignal, budget?: RenderBudget): Promise<WorkerReply> {
  let docId = documentIds.get(pdf);
  if (docId === undefined) {
    docId = nextDocumentId++;
    documentIds.set(pdf, docId);
  }
  const call = async (request: Request): Promise<WorkerReply> => {
    if (!budget) {
      return renderer.call(request, { signal });
    }
    // Counted from the call's start, not its place in the queue: another document's renders are not this one's.
    const { deadlineMs, cpuShare } = pdfResourceLimits().render;
    return renderer.call(request, { signal, ...budget.nextCall(deadlineMs, cpuShare), onEnd: (usage) => budget.spend(usage) });
  };
  // every call starts with at least half the resident limit free: a worker that kept more after a call is replaced
  const reply = await call({ ...operation, docId });
  return reply.missing ? call({ ...operation, docId, data: pdf }) : reply;
}

/** Stops the pdf.js worker now (it also stops by itself after 5 s without work). */
export async function closePdfRenderer(): Promise<void> {
  await renderer.close();
}

/**
 * The renderer, not the file, failed the call (worker died or was killed by the kernel, call abandoned, deadline
 * reached under the CPU budget: the machine starved it): worth another attempt of the job. A call that ran out of heap
 * or used its CPU budget is the file's doing and is not one of these (`isRenderOverLimit`).
 */
export function isRendererFailure(error: unknown): error is WorkerFailure {
  return error instanceof WorkerFailure && !isRenderOverLimit(error);
}

/**
 * The pages needed more heap, or more CPU, than the renderer gives one call: hostile or broken input. A call that used
 * its CPU budget (DEADLINE) counts as the file's: a few KB of nested form XObjects keep pdf.js busy for hours, and
 * every retry of such a file held the processor's slot for the whole deadline again, for every account's jobs, before
 * the order was parked. A call that reached its deadline under the budget (STARVED) waited for the machine and is
 * not one of these: no file is refused for a busy machine.
 */
export function isRenderOverLimit(error: unknown): error is WorkerFailure {
  return error instanceof WorkerFailure && (error.code === WorkerFailureCode.OUT_OF_MEMORY || error.code === WorkerFailureCode.DEADLINE);
}

function unwrap(reply: WorkerReply): WorkerReply {
  if (!reply.ok) {
    const e = reply.error ?? { name: 'Error', message: 'render failed', password: false };
    throw new RenderError(`${e.name}: ${e.message}`, e.password);
  }
  return reply;
}

/**
 * Renders the given 0-based pages at `dpi` (reduced per page so that width·height ≤ maxPixels); the calls of one embed
 * or extraction share a `budget` of render time.
 */
export async function renderPages(pdf: Uint8Array, pages: number[], dpi: number, maxPixels: number, signal?: AbortSignal, budget?: RenderBudget): Promise<RenderedPage[]> {
  const reply = unwrap(await callFor(pdf, { op: 'render', pages, dpi, maxPixels }, signal, budget));
  return (reply.pages ?? []) as RenderedPage[];
}

/**
 * The page count of a PDF after the library's checked parse (`loadChecked`: structure, inflation, pdf-lib within its
 * object and byte budgets, encryption, `maxPages`, JPEG 2000 sizes), run in the renderer's process under its heap,
 * resident memory and CPU budget, not in the caller's: a 59 KB file of 15 million empty dictionaries took pdf-lib
 * 1.8 s and 500 MB to refuse, all that time on the service's event loop. Rejects with the file's PdfWatermarkError,
 * or with the call's WorkerFailure (`isRenderOverLimit`: the file's; `isRendererFailure`: the machine's). The bytes
 * stay with the renderer for the renders of the same buffer that follow.
 */
export async function checkedPageCount(pdf: Uint8Array, maxPages: number, signal?: AbortSignal, budget?: RenderBudget): Promise<number> {
  const { inflation, parse } = pdfResourceLimits();
  const reply = await callFor(pdf, { op: 'check', maxPages, limits: { inflation, parse } }, signal, budget);
  if (reply.refusal) throw new PdfWatermarkError(reply.refusal.code, reply.refusal.message);
  return unwrap(reply).numPages ?? 0;
}

export async function pdfGeometry(pdf: Uint8Array): Promise<{ numPages: number; pages: PageGeometry[] }> {
  const reply = unwrap(await callFor(pdf, { op: 'info' }));
  return { numPages: reply.numPages ?? 0, pages: (reply.pages ?? []) as PageGeometry[] };
}

/** Text of every page as pdf.js extracts it (items joined by spaces). */
export async function pdfPageTexts(pdf: Uint8Array): Promise<string[]> {
  // public entry points take any file: the inflation bound first, as loadChecked does
  await checkInflation(pdf, pdfResourceLimits().inflation);
  const reply = unwrap(await callFor(pdf, { op: 'text' }));
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
  await checkInflation(pdf, pdfResourceLimits().inflation);
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
