// The report renderer runs pdfmake in a child process under limits: a render that overruns them fails with its code
// and leaves the service (this process) and the next render unaffected.
import { BoundedWorker, WORKER_CPU_SHARE, WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { pauseChildStartedBy } from '@cp/testing';
import { ReportRenderError, ReportRenderFailureCode } from '../generation/generation-errors';
import { closePdfRenderer, configurePdfRenderer, DEFAULT_PDF_RENDER_LIMITS, renderPdf } from './pdf-renderer';
import { ReportDefinition } from './report-layouts';

const definition = (content: ReportDefinition['document']['content']): ReportDefinition => ({
  document: { content, defaultStyle: { font: 'NotoSansKR' } },
  footer: { text: 'order 1', pageTemplate: 'Page {current} of {total}', style: 'muted', fontSize: 7.5, margin: [50, 20, 50, 0] },
});

const pages = (pdf: Buffer): number => (pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length;

async function failure(promise: Promise<unknown>): Promise<ReportRenderError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ReportRenderError)) throw new Error(`expected a ReportRenderError, got ${String(error)}`);
  return error;
}

describe('PdfRenderer worker', () => {
  afterEach(async () => {
    jest.restoreAllMocks();
    configurePdfRenderer({ ...DEFAULT_PDF_RENDER_LIMITS, cpuShare: WORKER_CPU_SHARE });
    await closePdfRenderer();
  });

  it('renders through the bounded worker, the definition as data only (named table layouts, footer data)', async () => {
    const call = jest.spyOn(BoundedWorker.prototype, 'call');
    const pdf = await renderPdf(
      definition([
        { table: { body: [['a', 'b'], ['c', 'd']] }, layout: 'keyValue' },
        { text: 'second page', pageBreak: 'before' },
      ]),
    );
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pages(pdf)).toBe(2);
    expect(call).toHaveBeenCalledTimes(1);
    // nothing in the request is a function: it crossed the process boundary whole
    const request: unknown = call.mock.calls[0][0];
    expect(JSON.stringify(request, (_key, value: unknown) => (typeof value === 'function' ? '<function>' : value))).not.toContain('<function>');
  });

  it('fails a render past its CPU budget with RENDER_DEADLINE, and the next render works', async () => {
    // 30 ms of CPU for a minute's deadline: a new render process uses more only to start (Node, pdfmake, the fonts)
    configurePdfRenderer({ deadlineMs: 60_000, cpuShare: 0.0005 });
    expect((await failure(renderPdf(definition(['slow'])))).code).toBe(ReportRenderFailureCode.DEADLINE);
    configurePdfRenderer({ ...DEFAULT_PDF_RENDER_LIMITS, cpuShare: WORKER_CPU_SHARE });
    expect(pages(await renderPdf(definition(['again'])))).toBe(1);
  });

  it('a render that reaches its deadline under its CPU budget (the process paused) fails as the machine\'s (STARVED), not a ReportRenderError', async () => {
    // a new render process (closing stops the idle one) started by a first render, then paused (SIGSTOP) while idle,
    // before the render it is given: it uses no CPU, however long it waits and however loaded the machine (a new
    // deadline keeps the process)
    await closePdfRenderer();
    await pauseChildStartedBy('/pdf-render-worker.mjs', async () => expect(pages(await renderPdf(definition(['warm'])))).toBe(1));
    configurePdfRenderer({ deadlineMs: 1500 });
    const error = await renderPdf(definition(['waits'])).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkerFailure);
    expect(error).toMatchObject({ code: WorkerFailureCode.STARVED });
    configurePdfRenderer(DEFAULT_PDF_RENDER_LIMITS);
    expect(pages(await renderPdf(definition(['again'])))).toBe(1);
  });

  it('fails a render past its heap limit with RENDER_OUT_OF_MEMORY, and this process goes on', async () => {
    configurePdfRenderer({ maxOldGenerationSizeMb: 16 });
    const many = Array.from({ length: 20_000 }, (_, index) => ({ text: `line ${index}` }));
    expect((await failure(renderPdf(definition(many)))).code).toBe(ReportRenderFailureCode.OUT_OF_MEMORY);
  });

  it('refuses a definition that reads a local file other than the fonts (RENDER_REJECTED)', async () => {
    const error = await failure(renderPdf(definition([{ image: '/etc/passwd' }])));
    expect(error.code).toBe(ReportRenderFailureCode.REJECTED);
  });
});
