import { WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { childPidsRunning, pauseChildRunning, pauseChildStartedBy } from '@cp/testing';
import type { WatermarkKey } from '@cp/watermark';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { checkInflation, filterChains } from './inflation';
import {
  closePdfRenderer,
  configurePdfResources,
  DEFAULT_PDF_RESOURCE_LIMITS,
  embedPdf,
  extractPdf,
  isRendererFailure,
  PdfWatermarkError,
  PdfWatermarkErrorCode,
  pdfResourceLimits,
  renderPdfPages,
} from './index';
import { pdfGeometry, RenderBudget, renderPages } from './render';
import { deflatedZeros, heapHungryPdf, imagePdf, inflationBombPdf, jpxCodestream, nestedFormsPdf, onePagePdf } from '../testing';

const KEY: WatermarkKey = { secret: 'spec-secret', version: 'v3' };
const original = readFileSync(resolve(__dirname, '../test-fixtures/text-1-page.pdf'));
const MiB = 1024 * 1024;

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'no error',
    (error: unknown) => error,
  );
}

afterEach(() => {
  configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
});

afterAll(async () => {
  await closePdfRenderer();
});

describe('inflation bound', () => {
  let bomb: Buffer;
  beforeAll(async () => {
    // 200 MiB of zeros in a content stream of about 200 KiB
    bomb = await inflationBombPdf(200 * MiB);
  });

  it('refuses a content stream that inflates a thousandfold before any parser opens the file', async () => {
    expect(bomb.length).toBeLessThan(MiB);
    const error = await errorOf(embedPdf(bomb, 1n, { key: KEY }));
    expect(error).toBeInstanceOf(PdfWatermarkError);
    expect((error as PdfWatermarkError).code).toBe(PdfWatermarkErrorCode.RESOURCE_LIMIT);
  });

  it('counts without keeping: checking the bomb does not grow memory by what it inflates to', async () => {
    const before = process.memoryUsage().arrayBuffers;
    await expect(checkInflation(bomb)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    // whatever the collector has not reclaimed yet, far below the 200 MiB the stream inflates to
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(100 * MiB);
  });

  it('extraction reports such a file as unsupported, inspected or original, and previews refuse it', async () => {
    await expect(extractPdf(bomb, original, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    await expect(extractPdf(original, bomb, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    await expect(renderPdfPages(bomb, [0], 40)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('follows chains of FlateDecode filters (a deflated deflate bomb)', async () => {
    const twice = onePagePdf(deflateSync(await deflatedZeros(200 * MiB)), '[/FlateDecode /FlateDecode]');
    await expect(checkInflation(twice)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
  });

  it('lets through ordinary files and highly compressible ones below the floor', async () => {
    await expect(checkInflation(original)).resolves.toBeUndefined();
    await expect(checkInflation(await inflationBombPdf(30 * MiB))).resolves.toBeUndefined();
  });

  it('scales the budget with the file and caps it', async () => {
    const file = await inflationBombPdf(20 * MiB);
    const limits = { minInflatedBytes: MiB, maxInflationRatio: 1000, maxInflatedBytes: 512 * MiB };
    // ~20 KiB × 1000 = ~20 MiB: just short of 20 MiB of zeros
    expect(file.length * 1000).toBeLessThan(20 * MiB);
    await expect(checkInflation(file, limits)).rejects.toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    await expect(checkInflation(file, { ...limits, maxInflationRatio: 2000 })).resolves.toBeUndefined();
    await expect(checkInflation(file, { ...limits, maxInflationRatio: 2000, maxInflatedBytes: 10 * MiB })).rejects.toMatchObject({
      code: PdfWatermarkErrorCode.RESOURCE_LIMIT,
    });
  });

  it('reads the filter chains of a dictionary text: escaped names, abbreviations, every /Filter key', () => {
    expect(filterChains('<< /Length 10 /Filter /FlateDecode >>')).toEqual([['FlateDecode']]);
    expect(filterChains('<< /Filter [ /FlateDecode /FlateDecode /DCTDecode ] >>')).toEqual([['FlateDecode', 'FlateDecode', 'DCTDecode']]);
    expect(filterChains('<< /Filter [/A85 /Fl] >>')).toEqual([['ASCII85Decode', 'FlateDecode']]);
    expect(filterChains('<< /Filt#65r /Flat#65Decode >>')).toEqual([['FlateDecode']]);
    expect(filterChains('<< /Filter /DCTDecode /X (/Filter /LZWDecode) >>')).toEqual([['DCTDecode'], ['LZWDecode']]);
    expect(filterChains('<< /FilterX /FlateDecode /Length 3 >>')).toEqual([]);
  });
});

describe('renderer documents', () => {
  it('a document the worker kept is rendered again after the worker was replaced (its bytes are sent again)', async () => {
    const pdf = Buffer.from(original);
    const [first] = await renderPdfPages(pdf, [0], 40);
    await closePdfRenderer();
    const [again] = await renderPdfPages(pdf, [0], 40);
    expect(again.rgb.equals(first.rgb)).toBe(true);
  });
});

describe('renderer limits', () => {
  it('an abandoned embed or extract (the job’s deadline) stops the renderer’s call and throws a renderer failure', async () => {
    const controller = new AbortController();
    controller.abort();
    const embedded = await errorOf(embedPdf(original, 1n, { key: KEY, signal: controller.signal }));
    expect(embedded).toMatchObject({ code: WorkerFailureCode.ABORTED });
    expect(isRendererFailure(embedded)).toBe(true);
    await expect(extractPdf(original, Buffer.from(original), { key: KEY, signal: controller.signal })).rejects.toMatchObject({ code: WorkerFailureCode.ABORTED });
  });

  it('a file that keeps the renderer past its CPU budget fails the file with RESOURCE_LIMIT (never retried); the next call works', async () => {
    // 3 KB of nested form XObjects: a million fills, minutes of pdf.js for one page (a CPU budget, not a heap, stops it)
    const slow = nestedFormsPdf(6, 10);
    // warm: the worker process is up and pdf.js loaded, so only the renders are measured
    await renderPdfPages(original, [0], 40);
    // 1.5 s of CPU for a minute's deadline: only the budget can stop the page within the test's time, however busy the machine
    configurePdfResources({ render: { deadlineMs: 60_000, cpuShare: 0.025 } });
    const rendered = await errorOf(renderPdfPages(slow, [0], 24));
    expect(rendered).toBeInstanceOf(WorkerFailure);
    expect((rendered as WorkerFailure).code).toBe(WorkerFailureCode.DEADLINE);
    expect((rendered as WorkerFailure).message).toContain('past its CPU budget');
    expect(isRendererFailure(rendered)).toBe(false);
    const embedded = await errorOf(embedPdf(slow, 1n, { key: KEY }));
    expect(embedded).toBeInstanceOf(PdfWatermarkError);
    expect((embedded as PdfWatermarkError).code).toBe(PdfWatermarkErrorCode.RESOURCE_LIMIT);
    await expect(extractPdf(slow, original, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    await expect(extractPdf(original, slow, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
    const [page] = await renderPdfPages(original, [0], 40);
    expect(page.width).toBeGreaterThan(0);
  });

  it('an embed or extraction whose calls each stay under the deadline but together run past the document budget fails the file (RESOURCE_LIMIT / unsupported)', async () => {
    // warm: the worker process is up and pdf.js loaded
    await renderPdfPages(original, [0], 40);
    // the budget shortens the one call it is left for: a page of minutes stops at the budget, not at the 60 s deadline.
    // Its CPU budget (300 ms) a twenty-fifth of its 7.5 s: the file's whenever the machine gives the renderer 4 % of a
    // core. Not 1.5 s at a fifth: a new renderer's start and check got under a fifth of a core with three busy
    // processes on its core, and the extraction was STARVED (thrown) instead of unsupported.
    configurePdfResources({ render: { deadlineMs: 60_000, cpuShare: 0.04, documentBudgetMs: 7500 } });
    const slow = nestedFormsPdf(6, 10);
    const embedded = await errorOf(embedPdf(slow, 1n, { key: KEY }));
    // the message says which budget stopped it, should the code be another (a WorkerFailure's STARVED)
    expect({ code: (embedded as PdfWatermarkError).code, message: (embedded as Error).message }).toMatchObject({ code: PdfWatermarkErrorCode.RESOURCE_LIMIT });
    expect(embedded).toBeInstanceOf(PdfWatermarkError);
    await expect(extractPdf(slow, original, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    // spent across calls: the budget counts every call of one pass, a call that starts with nothing left is refused
    // (warm again first: the deadlines above replaced the worker, and its start would count against the budget).
    // 1.2 s of CPU: the first 72-dpi render used 330 ms here, so several calls share it on a machine a few times slower;
    // a twenty-fifth of 30 s, so that only a renderer given less than 4 % of a core runs out the time first (STARVED).
    await renderPdfPages(original, [0], 40);
    const budget = new RenderBudget(30_000, 0.04);
    let calls = 0;
    const spent = await errorOf(
      (async () => {
        for (; calls < 10_000; calls += 1) {
          await renderPages(original, [0], 72, 60_000_000, undefined, budget);
        }
      })(),
    );
    expect(spent).toBeInstanceOf(WorkerFailure);
    expect({ code: (spent as WorkerFailure).code, message: (spent as WorkerFailure).message }).toMatchObject({ code: WorkerFailureCode.DEADLINE });
    expect(isRendererFailure(spent)).toBe(false);
    expect(calls).toBeGreaterThan(1);
    // the defaults: a pass of an ordinary file is far within its budget, and every pass has a budget of its own
    configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
    await expect(embedPdf(original, 1n, { key: KEY })).resolves.toBeInstanceOf(Buffer);
  });

  it('a call that reaches its deadline under its CPU budget (the renderer paused) is the renderer\'s failure (STARVED): thrown, to retry the job, not the file refused', async () => {
    // the renderer started by a first call, then paused (SIGSTOP) while idle, before the work it is given: it uses no
    // CPU, however long it waits and however loaded the machine (a new deadline keeps the process). The first call is
    // the page geometry, which ends with the renderer's: after a whole extraction, whose decoding in this process took
    // over the renderer's 5 s of idleness on a loaded machine, the renderer had already stopped when it was looked for
    const paused = async (work: () => Promise<unknown>): Promise<unknown> => {
      configurePdfResources({ render: { deadlineMs: DEFAULT_PDF_RESOURCE_LIMITS.render.deadlineMs } });
      await pauseChildStartedBy('/render-worker.mjs', () => pdfGeometry(original));
      configurePdfResources({ render: { deadlineMs: 1500 } });
      return errorOf(work());
    };
    await closePdfRenderer();
    const embedded = await paused(() => embedPdf(original, 1n, { key: KEY }));
    expect(embedded).toBeInstanceOf(WorkerFailure);
    expect((embedded as WorkerFailure).code).toBe(WorkerFailureCode.STARVED);
    expect(isRendererFailure(embedded)).toBe(true);
    // extraction: a failure thrown, not `unsupported` (the paused renderer was replaced: the new one is paused)
    const extracted = await paused(() => extractPdf(original, Buffer.from(original), { key: KEY }));
    expect(extracted).toMatchObject({ code: WorkerFailureCode.STARVED });
    configurePdfResources(DEFAULT_PDF_RESOURCE_LIMITS);
    await expect(embedPdf(original, 1n, { key: KEY })).resolves.toBeInstanceOf(Buffer);
  });

  it('a document budget counts its calls\' CPU: spent in CPU it is the file\'s (DEADLINE), in wall time with the CPU under it the machine\'s (STARVED)', () => {
    const thrown = (budget: RenderBudget): unknown => {
      try {
        return budget.nextCall(60_000, 0.5);
      } catch (error) {
        return error;
      }
    };
    // 1 s of wall time, 500 ms of CPU
    const busy = new RenderBudget(1000, 0.5);
    busy.spend({ wallMs: 600, cpuMs: 550 });
    expect(thrown(busy)).toMatchObject({ code: WorkerFailureCode.DEADLINE });
    expect(isRendererFailure(thrown(busy))).toBe(false);
    const waited = new RenderBudget(1000, 0.5);
    waited.spend({ wallMs: 1200, cpuMs: 40 });
    expect(thrown(waited)).toMatchObject({ code: WorkerFailureCode.STARVED });
    expect(isRendererFailure(thrown(waited))).toBe(true);
    // what is left: the wall time for the deadline, the CPU for the call's CPU budget; unmeasured CPU counts as wall
    const left = new RenderBudget(1000, 0.5);
    left.spend({ wallMs: 300, cpuMs: 200 });
    expect(left.nextCall(60_000, 0.5)).toEqual({ deadlineMs: 700, cpuBudgetMs: 300 });
    left.spend({ wallMs: 350, cpuMs: null });
    expect(thrown(left)).toMatchObject({ code: WorkerFailureCode.DEADLINE });
  });

  it('a document whose renderer was paused through most of its budget is the machine\'s (STARVED: thrown, to retry the job), not the file refused', async () => {
    // a new renderer (closing stops the idle one), paused (SIGSTOP) as it starts its first call, resumed after 3.2 s of
    // its document budget of 4 s (2 s of CPU): the calls that follow run out the wall time, never the CPU. Not 2.5 s:
    // the renderer's start and 1.5 s of renders (V8's helper threads count too) used 1.83-1.90 s of the 2 s here, and
    // a CI run's went past it (DEADLINE); at 3.2 s about 1 s of CPU was left.
    await closePdfRenderer();
    const others = childPidsRunning('/render-worker.mjs');
    const budget = new RenderBudget(4000, 0.5);
    const pages = (async () => {
      for (let calls = 0; calls < 10_000; calls += 1) await renderPages(original, [0], 40, 60_000_000, undefined, budget);
    })();
    const settled = errorOf(pages);
    const pid = await pauseChildRunning('/render-worker.mjs', others);
    await new Promise((resolve) => setTimeout(resolve, 3200));
    process.kill(pid, 'SIGCONT');
    const spent = await settled;
    expect(spent).toBeInstanceOf(WorkerFailure);
    // the message says what was used of which budget, should the code be another
    expect({ code: (spent as WorkerFailure).code, message: (spent as WorkerFailure).message }).toMatchObject({ code: WorkerFailureCode.STARVED });
    expect(isRendererFailure(spent)).toBe(true);
  });

  it('a page whose image decodes past the renderer’s resident memory fails the file with RESOURCE_LIMIT; the next call works', async () => {
    // Attack review: a small PDF holding a large flat JPEG (16000 × 16000 in 1.5 MB) took a 40-dpi render to 3.2 GB,
    // in arrays the heap limit does not see. Here a 6000 × 6000 one (about 450 MB decoded) under a 300 MiB limit.
    const jpeg = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: { r: 90, g: 120, b: 150 } } })
      .jpeg({ quality: 50 })
      .toBuffer();
    const document = await PDFDocument.create();
    const image = await document.embedJpg(jpeg);
    document.addPage([300, 300]).drawImage(image, { x: 0, y: 0, width: 300, height: 300 });
    const bytes = Buffer.from(await document.save());
    expect(bytes.length).toBeLessThan(2 * MiB);
    configurePdfResources({ render: { maxResidentMb: 300 } });
    const error = await errorOf(embedPdf(bytes, 1n, { key: KEY }));
    expect(error).toBeInstanceOf(PdfWatermarkError);
    expect((error as PdfWatermarkError).code).toBe(PdfWatermarkErrorCode.RESOURCE_LIMIT);
    const [page] = await renderPdfPages(original, [0], 40);
    expect(page.width).toBeGreaterThan(0);
  });

  it('a worker that keeps more than half its resident limit after a call is replaced before the next one', async () => {
    // The processes this one started (the renderer's), from /proc (Linux, as the resident watch).
    const children = (): number[] =>
      readdirSync(`/proc/${process.pid}/task`).flatMap((task) =>
        readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number),
      );
    await closePdfRenderer();
    // limit 360 MiB: a worker retires above 180; an ordinary page leaves it at ~110 MiB, one 2048² JPEG 2000 image at
    // ~215 (OpenJPEG's WebAssembly memory never shrinks: 64 such images left 1.2 GB of a 1.5 GB limit to the next file)
    configurePdfResources({ render: { maxResidentMb: 360 } });
    await renderPdfPages(original, [0], 40);
    const first = children();
    expect(first.length).toBeGreaterThan(0);
    await renderPdfPages(original, [0], 40);
    expect(children()).toEqual(first);
    await renderPdfPages(imagePdf(jpxCodestream(2048, 2048, 3, 0), 2048, 2048), [0], 24);
    // The next call runs on a new process (the old one is told to stop at once; how soon it is gone depends on the
    // machine's load, so only its replacement is checked).
    const [page] = await renderPdfPages(original, [0], 40);
    expect(page.width).toBeGreaterThan(0);
    expect(children().filter((pid) => !first.includes(pid)).length).toBeGreaterThan(0);
  });

  it('a heap limit set alone brings the resident limit with it (heap + 512 MiB)', () => {
    configurePdfResources({ render: { maxOldGenerationSizeMb: 256 } });
    expect(pdfResourceLimits().render.maxResidentMb).toBe(256 + 512);
    configurePdfResources({ render: { maxOldGenerationSizeMb: 256, maxResidentMb: 384 } });
    expect(pdfResourceLimits().render.maxResidentMb).toBe(384);
  });

  it('a page that runs the renderer’s heap out fails the file with RESOURCE_LIMIT; the next call works', async () => {
    // within the inflation budget (20 MB of text operators), but pdf.js holds them all in one array
    const hungry = heapHungryPdf(10_000_000);
    configurePdfResources({ render: { maxOldGenerationSizeMb: 64 } });
    const error = await errorOf(embedPdf(hungry, 1n, { key: KEY }));
    expect(error).toBeInstanceOf(PdfWatermarkError);
    expect((error as PdfWatermarkError).code).toBe(PdfWatermarkErrorCode.RESOURCE_LIMIT);
    await expect(extractPdf(hungry, original, { key: KEY })).resolves.toMatchObject({ status: 'unsupported' });
    const [page] = await renderPdfPages(original, [0], 40);
    expect(page.width).toBeGreaterThan(0);
  });
});
