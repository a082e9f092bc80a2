import { BoundedWorker, isWorkerMachineFailure, residentLimitMb, WorkerFailure, WorkerFailureCode, WorkerLimits } from '@cp/bounded-worker';
import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { ReportRenderError, ReportRenderFailureCode } from '../generation/generation-errors';
import { missingFontFiles, pdfmakeFonts } from './report-fonts';
import { REPORT_TABLE_LAYOUTS, ReportDefinition } from './report-layouts';

export interface PdfRenderLimits {
  /** Budget of one render, in milliseconds (the worst 20-image report takes about 1.5 s on a busy 2-core machine). */
  deadlineMs: number;
  /** JavaScript heap of the render process, in MiB (the worst report peaks near 270 MB resident in all). */
  maxOldGenerationSizeMb: number;
}

// 256 MiB of heap (768 MiB resident with its headroom): the chart's pod limit holds it beside the service and the
// previews' renderer (384 MiB).
export const DEFAULT_PDF_RENDER_LIMITS: PdfRenderLimits = { deadlineMs: 60_000, maxOldGenerationSizeMb: 256 };

interface Request {
  document: ReportDefinition['document'];
  footer: ReportDefinition['footer'];
  tableLayouts: typeof REPORT_TABLE_LAYOUTS;
  fonts: ReturnType<typeof pdfmakeFonts>;
}

interface Reply {
  id: number;
  ok: boolean;
  pdf?: Uint8Array;
  error?: { name: string; message: string };
}

// A plain ES module loaded by path: the same file runs under tools/register.js, Jest and the build (copied to dist/).
const WORKER_FILE = join(__dirname, 'pdf-render-worker.mjs');

function limitsOf(limits: PdfRenderLimits): WorkerLimits {
  return { ...limits, maxResidentMb: residentLimitMb(limits.maxOldGenerationSizeMb) };
}

/**
 * pdfmake off the service's event loop: one child process, one render at a time (queued renders wait their turn),
 * each under a deadline, a heap limit and a resident-memory watch; the process is replaced after a failure, and
 * stopped after five idle minutes (starting one and loading the fonts costs a few hundred milliseconds).
 * A process rather than a thread: a render past its heap limit then ends the child, never the service.
 */
const renderer = new BoundedWorker<Request, Reply>({
  name: 'report-pdf',
  file: WORKER_FILE,
  isolation: 'process',
  limits: limitsOf(DEFAULT_PDF_RENDER_LIMITS),
  idleMs: 5 * 60_000,
  // a process that kept more than half its resident limit after a render is replaced: the next starts with room
  retireAboveResidentShare: 0.5,
});

/**
 * New limits apply from the next render process (tests use tiny ones); `cpuShare`, the share of the deadline a render
 * may spend on the CPU, is WORKER_CPU_SHARE unless given.
 */
export function configurePdfRenderer(limits: Partial<PdfRenderLimits & Pick<WorkerLimits, 'cpuShare'>>): void {
  const current = renderer.currentLimits;
  const { cpuShare, ...rest } = limits;
  renderer.configure({ ...limitsOf({ deadlineMs: current.deadlineMs, maxOldGenerationSizeMb: current.maxOldGenerationSizeMb, ...rest }), cpuShare: cpuShare ?? current.cpuShare });
}

/** Stops the render process (it also stops by itself when idle, and never keeps the service alive). */
export async function closePdfRenderer(): Promise<void> {
  await renderer.close();
}

const CODES: Record<Exclude<WorkerFailureCode, WorkerFailureCode.STARVED | WorkerFailureCode.KILLED>, ReportRenderFailureCode> = {
  [WorkerFailureCode.DEADLINE]: ReportRenderFailureCode.DEADLINE,
  [WorkerFailureCode.OUT_OF_MEMORY]: ReportRenderFailureCode.OUT_OF_MEMORY,
  [WorkerFailureCode.CRASHED]: ReportRenderFailureCode.CRASHED,
  [WorkerFailureCode.ABORTED]: ReportRenderFailureCode.CRASHED,
};

/**
 * Renders a report in the render process; throws ReportRenderError when it gives no PDF, or the WorkerFailure as it is
 * when the machine failed the render (STARVED: its deadline reached under its CPU budget; KILLED: by the kernel), which
 * the job retries.
 */
export async function renderPdf(definition: ReportDefinition): Promise<Buffer> {
  let reply: Reply;
  try {
    reply = await renderer.call({
      document: definition.document,
      footer: definition.footer,
      tableLayouts: REPORT_TABLE_LAYOUTS,
      fonts: pdfmakeFonts(),
    });
  } catch (error) {
    if (isWorkerMachineFailure(error)) throw error;
    if (error instanceof WorkerFailure) throw new ReportRenderError(CODES[error.code as keyof typeof CODES], error.message);
    throw error;
  }
  if (!reply.ok || !reply.pdf) {
    throw new ReportRenderError(ReportRenderFailureCode.REJECTED, `${reply.error?.name ?? 'Error'}: ${reply.error?.message ?? 'no PDF'}`);
  }
  // The IPC channel delivers a Uint8Array: a Buffer over the same memory, no copy.
  return Buffer.from(reply.pdf.buffer, reply.pdf.byteOffset, reply.pdf.byteLength);
}

/** Checks the fonts at start, so a broken image fails at boot rather than on the first report. */
@Injectable()
export class PdfRenderer implements OnModuleInit, OnModuleDestroy {
  onModuleInit(): void {
    const missing = missingFontFiles();
    if (missing.length > 0) {
      throw new Error(`report fonts missing: ${missing.join(', ')}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await closePdfRenderer();
  }

  render(definition: ReportDefinition): Promise<Buffer> {
    return renderPdf(definition);
  }
}
