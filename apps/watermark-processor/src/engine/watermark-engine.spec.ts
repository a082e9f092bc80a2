// The engine's PDF path against hostile files: what is the file's fault (a public code, no retry) and what is the
// renderer's (thrown, so the job's attempt fails and its exhaustion marks the order processingDelayed).
import { WorkerFailure } from '@cp/bounded-worker';
import { OrderFailureCode } from '@cp/contracts';
import { encryptedPdfFixture } from '@cp/testing';
import { closePdfRenderer, configurePdfResources, DEFAULT_PDF_RESOURCE_LIMITS, pdfResourceLimits } from '@cp/watermark-pdf';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { heapHungryPdf, inflationBombPdf, nestedFormsPdf } from '@cp/watermark-pdf/testing';
import { loadWatermarkProcessorConfig, WatermarkProcessorConfig } from '../watermark-processor.config';
import { InputRejected, WatermarkEngine } from './watermark-engine';

const original = readFileSync(resolve(__dirname, '../../../../libs/watermark-pdf/test-fixtures/text-1-page.pdf'));
const base = { DATABASE_URL: 'postgres://localhost/x' };

function engine(env: Record<string, string> = {}): WatermarkEngine {
  const config: WatermarkProcessorConfig = loadWatermarkProcessorConfig({ ...base, ...env });
  return new WatermarkEngine(config);
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'no error',
    (error: unknown) => error,
  );
}

afterEach(() => {
  // the renderer's limits are process-wide: the next test starts from the defaults
  engine();
});

afterAll(async () => {
  await closePdfRenderer();
});

describe('WatermarkEngine: PDF limits', () => {
  it('takes the PDF limits from the environment', () => {
    engine({ PDF_RENDER_DEADLINE_MS: '5000', PDF_RENDER_MAX_HEAP_MB: '256', PDF_RENDER_DOCUMENT_BUDGET_MS: '300000', PDF_MAX_INFLATED_BYTES: String(100 * 1024 * 1024), PDF_MAX_INFLATION_RATIO: '50', PDF_MAX_PARSED_OBJECTS: '50000', PDF_MAX_PARSED_TOKEN_BYTES: '1048576' });
    expect(pdfResourceLimits()).toEqual({
      inflation: { maxInflatedBytes: 100 * 1024 * 1024, maxInflationRatio: 50, minInflatedBytes: 64 * 1024 * 1024 },
      parse: { maxObjects: 50_000, maxTokenBytes: 1024 * 1024 },
      // The renderer's whole resident memory follows its heap (heap + 512 MiB); its CPU budget is half its deadline.
      render: { deadlineMs: 5000, cpuShare: 0.5, maxOldGenerationSizeMb: 256, maxResidentMb: 256 + 512, documentBudgetMs: 300_000 },
    });
    engine();
    expect(pdfResourceLimits()).toEqual(DEFAULT_PDF_RESOURCE_LIMITS);
  });

  it('an inflation bomb fails the output with WATERMARK_FILE_INVALID, and extraction calls it unsupported', async () => {
    const bomb = await inflationBombPdf(200 * 1024 * 1024);
    const error = await errorOf(engine().embed(bomb, 1n, 'pdf'));
    expect(error).toBeInstanceOf(InputRejected);
    expect((error as InputRejected).code).toBe(OrderFailureCode.WATERMARK_FILE_INVALID);
    await expect(engine().extract(bomb, original, 'pdf')).resolves.toMatchObject({ status: 'unsupported' });
  });

  it('a page that runs the renderer’s heap out is the file’s fault: WATERMARK_FILE_INVALID, not a retry', async () => {
    const error = await errorOf(engine({ PDF_RENDER_MAX_HEAP_MB: '64' }).embed(heapHungryPdf(10_000_000), 1n, 'pdf'));
    expect(error).toBeInstanceOf(InputRejected);
    expect((error as InputRejected).code).toBe(OrderFailureCode.WATERMARK_FILE_INVALID);
  });

  it('a file that keeps the renderer past its deadline is the file’s fault: WATERMARK_FILE_INVALID and unsupported, not a retry', async () => {
    // attack review: 3 KB of nested form XObjects kept pdf.js busy for minutes, and each retry held the processor again
    const slow = nestedFormsPdf(6, 10);
    const limited = engine({ PDF_RENDER_DEADLINE_MS: '10000' });
    // A CPU budget of 5 % of the deadline (500 ms): the file runs past it however loaded the machine (at half, a
    // renderer given less than half a core reached its deadline first, STARVED, as the machine's: that case has its
    // own test in @cp/watermark-pdf).
    // The new share starts a new renderer, whose start (Node, pdf.js) the first call's budget counts too: no warm-up
    // (a loaded CI machine spent 510 ms of CPU starting one and embedding an ordinary PDF), the file alone runs for minutes.
    configurePdfResources({ render: { cpuShare: 0.05 } });
    const embedded = await errorOf(limited.embed(slow, 1n, 'pdf'));
    expect(embedded).toBeInstanceOf(InputRejected);
    expect((embedded as InputRejected).code).toBe(OrderFailureCode.WATERMARK_FILE_INVALID);
    await expect(limited.extract(slow, original, 'pdf')).resolves.toMatchObject({ status: 'unsupported' });
  });

  it('the renderer’s own trouble is not the file’s fault: an abandoned call throws (the attempt fails, the job is retried)', async () => {
    const abandoned = new AbortController();
    abandoned.abort();
    const embedded = await errorOf(engine().embed(original, 1n, 'pdf', 'v3', abandoned.signal));
    expect(embedded).toBeInstanceOf(WorkerFailure);
    expect(embedded).not.toBeInstanceOf(InputRejected);
  });
});

// Outside review: a broken original ended as `error`, which the API keeps for a failure of the detection itself. Either
// file that cannot be read is input out of range: `unsupported` (refunded like `error`, spec 2.4).
describe('WatermarkEngine: an original that cannot be read', () => {
  const photo = (): Promise<Buffer> =>
    sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 90, g: 140, b: 60 } } })
      .composite([{ input: Buffer.from('<svg width="320" height="240"><circle cx="150" cy="110" r="70" fill="#fff"/></svg>'), top: 0, left: 0 }])
      .jpeg({ quality: 90 })
      .toBuffer();
  const half = (bytes: Buffer): Buffer => bytes.subarray(0, bytes.length >> 1);

  it.each([
    ['a truncated JPEG', async () => half(await photo())],
    ['a zero-byte file', () => Promise.resolve(Buffer.alloc(0))],
    ['a truncated PNG', async () => half(await sharp(await photo()).png().toBuffer())],
  ])('image original: %s is unsupported, with a readable inspected copy', async (_name, make) => {
    await expect(engine().extract(await photo(), await make(), 'image')).resolves.toMatchObject({ status: 'unsupported' });
  });

  it('PDF original: a truncated or encrypted one is unsupported', async () => {
    await expect(engine().extract(original, half(original), 'pdf')).resolves.toMatchObject({ status: 'unsupported' });
    await expect(engine().extract(original, encryptedPdfFixture(), 'pdf')).resolves.toMatchObject({ status: 'unsupported' });
  });
});
