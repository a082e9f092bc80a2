// Child process of the decoder fuzzer: runs one engine call per message through the public APIs of the
// image and PDF engines and answers how it ended. A crash, hang or runaway allocation kills only this
// process; the parent sees it and reports the input as a finding.
import { processTreeCpuMillis } from '@cp/bounded-worker';
import { embedImage, extractImage, inspectImage, WatermarkError, WatermarkKey } from '@cp/watermark';
import { closePdfRenderer, embedPdf, extractPdf, PdfWatermarkError } from '@cp/watermark-pdf';

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

process.on('message', (message: DecodeRequest) => {
  const started = { wall: performance.now(), cpu: processTreeCpuMillis(process.pid) };
  run(message).then(
    (detail) => reply(message.id, 'result', detail, started),
    (error: unknown) => {
      const typed = error instanceof WatermarkError || error instanceof PdfWatermarkError;
      reply(message.id, typed ? 'typed-error' : 'untyped-error', typed ? error.code : String(error).slice(0, 300), started);
    },
  );
});

function reply(id: number, outcome: DecodeReply['outcome'], detail: string, started: { wall: number; cpu: number | null }): void {
  const cpu = processTreeCpuMillis(process.pid);
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
