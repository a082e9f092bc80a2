// Child process of the decoder fuzzer: runs one engine call per message through the public APIs of the
// image and PDF engines and answers how it ended. A crash, hang or runaway allocation kills only this
// process; the parent sees it and reports the input as a finding.
import { processCpuMillis } from '@cp/bounded-worker';
import { embedImage, extractImage, inspectImage, WatermarkError, WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, PdfWatermarkError } from '@cp/watermark-pdf';
import { readdirSync, readFileSync } from 'node:fs';

export interface DecodeRequest {
  id: number;
  operation: 'inspect-image' | 'extract-image' | 'embed-image' | 'embed-pdf' | 'extract-pdf';
  input: string;
  original?: string;
}

export interface DecodeReply {
  id: number;
  outcome: 'result' | 'typed-error' | 'untyped-error';
  detail: string;
  ms: number;
  /** CPU the call used, this process's and its children's (the PDF renderer, ExifTool); null without /proc. */
  cpuMs: number | null;
  peakRssMb: number;
}

const key: WatermarkKey = { secret: 'decoder-fuzz-secret', version: 'v3' };

async function run(request: DecodeRequest): Promise<string> {
  const input = Buffer.from(request.input, 'base64');
  switch (request.operation) {
    case 'inspect-image':
      return JSON.stringify(await inspectImage(input));
    case 'extract-image':
      return (await extractImage(input, null, { key })).status;
    case 'embed-image':
      return (await embedImage(input, 42n, { key })).format;
    case 'embed-pdf':
      return `${(await embedPdf(input, 42n, { key, maxPages: 50 })).length} bytes`;
    case 'extract-pdf':
      return (await extractPdf(input, Buffer.from(request.original ?? '', 'base64'), { key, maxPages: 50 })).status;
  }
}

/**
 * CPU used so far by this process (all its threads), by the children it has reaped (cutime + cstime of
 * /proc/self/stat, in clock ticks of 10 ms) and by those still running, in ms: a child's CPU moves from the last
 * to the second when it ends, so the sum only grows. Null without /proc.
 */
function cpuWithChildrenMs(): number | null {
  const own = processCpuMillis(process.pid);
  if (own === null) return null;
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let total = own + (Number(fields[13]) + Number(fields[14])) * 10;
  try {
    for (const task of readdirSync('/proc/self/task')) {
      for (const child of readFileSync(`/proc/self/task/${task}/children`, 'latin1').split(/\s+/).filter(Boolean)) {
        total += processCpuMillis(Number(child)) ?? 0;
      }
    }
  } catch {
    // A kernel without /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN), or a thread that ended meanwhile:
    // not measured, and the wall time stands for it.
    return null;
  }
  return total;
}

process.on('message', (message: DecodeRequest) => {
  const started = { wall: performance.now(), cpu: cpuWithChildrenMs() };
  run(message).then(
    (detail) => reply(message.id, 'result', detail, started),
    (error: unknown) => {
      const typed = error instanceof WatermarkError || error instanceof PdfWatermarkError;
      reply(message.id, typed ? 'typed-error' : 'untyped-error', typed ? error.code : String(error).slice(0, 300), started);
    },
  );
});

function reply(id: number, outcome: DecodeReply['outcome'], detail: string, started: { wall: number; cpu: number | null }): void {
  const cpu = cpuWithChildrenMs();
  const answer: DecodeReply = {
    id,
    outcome,
    detail,
    ms: Math.round(performance.now() - started.wall),
    cpuMs: cpu === null || started.cpu === null ? null : Math.round(cpu - started.cpu),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.send?.(answer);
}

process.on('disconnect', () => {
  void closePdfRenderer().finally(() => process.exit(0));
});
