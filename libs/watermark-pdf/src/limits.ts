import { residentLimitMb, WORKER_CPU_SHARE } from '@cp/bounded-worker';
import { DEFAULT_MAX_PARSED_OBJECTS, DEFAULT_MAX_TOKEN_BYTES } from './bounded-parse';
import { DEFAULT_INFLATION_LIMITS, InflationLimits } from './inflation';

/** What one PDF may cost to open and render (set once by the service from its configuration). */
export interface PdfResourceLimits {
  inflation: InflationLimits;
  parse: {
    /**
     * Objects (numbers, names, strings, arrays, dictionaries) pdf-lib may build while it parses one file, in the
     * calling process, object streams' included: past it the file fails as RESOURCE_LIMIT.
     */
    maxObjects: number;
    /**
     * Bytes of names and strings pdf-lib may build while it parses one file (a character at a time, ~32 bytes of heap
     * each): past it the file fails as RESOURCE_LIMIT.
     */
    maxTokenBytes: number;
  };
  render: {
    /**
     * Wall time of one call to the pdf.js worker (a batch of pages), in milliseconds. A call that reaches it having used
     * less than `cpuShare` of it on the CPU waited for the machine: it fails as the renderer's (STARVED) and the job is
     * retried.
     */
    deadlineMs: number;
    /**
     * Share of `deadlineMs` that is one call's CPU budget (WORKER_CPU_SHARE): past it the file fails as RESOURCE_LIMIT.
     */
    cpuShare: number;
    /** Heap of the pdf.js worker thread, in MiB: a page that needs more fails as RESOURCE_LIMIT. */
    maxOldGenerationSizeMb: number;
    /**
     * The pdf.js process's whole resident memory, in MiB (heap, decoded images, WebAssembly): past it the process is
     * killed and the file fails as RESOURCE_LIMIT. The heap limit does not bound the arrays pdf.js decodes images
     * into: a 1.5 MB PDF holding a 16000 × 16000 JPEG took one 40-dpi render to 3.2 GB. Unless set, `residentLimitMb`
     * of the heap (the heap plus 512 MiB; a 600-dpi A4 scan decodes to about 450 MB).
     */
    maxResidentMb: number;
    /**
     * Render time of one embed or one extraction in all (every call, every batch of pages), in milliseconds: past it
     * the file fails as RESOURCE_LIMIT. Below the jobs' own deadlines (embed 15 min, extract 10 min), so a file whose
     * pages each stay under `deadlineMs` but together run for longer is refused as the file's doing, once, instead of
     * being abandoned by the job's deadline and retried.
     */
    documentBudgetMs: number;
  };
}

export const DEFAULT_PDF_RESOURCE_LIMITS: PdfResourceLimits = {
  inflation: DEFAULT_INFLATION_LIMITS,
  parse: { maxObjects: DEFAULT_MAX_PARSED_OBJECTS, maxTokenBytes: DEFAULT_MAX_TOKEN_BYTES },
  render: { deadlineMs: 120_000, cpuShare: WORKER_CPU_SHARE, maxOldGenerationSizeMb: 1024, maxResidentMb: residentLimitMb(1024), documentBudgetMs: 480_000 },
};

let current: PdfResourceLimits = DEFAULT_PDF_RESOURCE_LIMITS;
const listeners: Array<(limits: PdfResourceLimits) => void> = [];

export function pdfResourceLimits(): PdfResourceLimits {
  return current;
}

/** Replaces the limits (missing parts keep their current values); the renderer picks them up for its next worker. */
export function configurePdfResources(limits: {
  inflation?: Partial<InflationLimits>;
  parse?: Partial<PdfResourceLimits['parse']>;
  render?: Partial<PdfResourceLimits['render']>;
}): void {
  const render = { ...current.render, ...limits.render };
  if (limits.render?.maxOldGenerationSizeMb !== undefined && limits.render.maxResidentMb === undefined) {
    render.maxResidentMb = residentLimitMb(limits.render.maxOldGenerationSizeMb);
  }
  current = {
    inflation: { ...current.inflation, ...limits.inflation },
    parse: { ...current.parse, ...limits.parse },
    render,
  };
  for (const listener of listeners) listener(current);
}

export function onPdfResourceLimits(listener: (limits: PdfResourceLimits) => void): void {
  listeners.push(listener);
}
