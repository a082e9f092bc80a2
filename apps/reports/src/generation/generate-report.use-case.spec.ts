// A report whose render fails in the render process (here: past its CPU budget) ends as a failed attempt with its
// code, not as an error of the service; one the machine failed (the process paused) is thrown so the job is redelivered.
import { WORKER_CPU_SHARE, WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { ManualClock } from '@cp/clock';
import { GenerateReportJob, ReportContextView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { pauseChildStartedBy } from '@cp/testing';
import { Logger } from '@nestjs/common';
import { ReportState } from '../domain/report';
import { closePdfRenderer, configurePdfRenderer, DEFAULT_PDF_RENDER_LIMITS, PdfRenderer } from '../rendering/pdf-renderer';
import { OrderContextClient } from '../reports/order-context.client';
import { ReportsSettings } from '../reports.config';
import { FileEvidenceReader } from './file-evidence.reader';
import { ReportRenderFailureCode } from './generation-errors';
import { GenerateReportUseCase } from './generate-report.use-case';
import { ReportOutcomes } from './report-outcomes.service';

const row = { orderId: '42', locale: 'en-US', accountId: '7', mode: 'test', reportType: 'watermarkDetection', attempt: 1 } as ReportState;

const context: ReportContextView = {
  orderId: '42',
  orderName: 'extract-42',
  orderType: 'watermarkExtract',
  apiVersion: 'v3',
  mode: 'test',
  status: 'complete',
  expired: false,
  createdAt: '2026-11-20T10:00:00.000Z',
  completedAt: '2026-11-20T10:01:00.000Z',
  expiresAt: '2026-12-20T10:00:00.000Z',
  result: { detectionStatus: 'not_detected', reportSupported: true, watermarkText: null },
  confidence: null,
  method: null,
  detectionStatus: 'not_detected',
  files: [
    { role: 'original', fileName: 'a.png', size: 1, bucket: 'b', key: 'a' },
    { role: 'inspected', fileName: 'b.png', size: 1, bucket: 'b', key: 'b' },
  ],
};

function useCase(): { execute: (job: GenerateReportJob) => Promise<void>; failed: string[]; stored: Buffer[] } {
  const failed: string[] = [];
  const stored: Buffer[] = [];
  const outcomes = {
    start: () => Promise.resolve(row),
    complete: () => Promise.resolve(),
    fail: (_orderId: string, _locale: string, _attempt: number, code: string) => {
      failed.push(code);
      return Promise.resolve();
    },
  } as unknown as ReportOutcomes;
  const orders = { get: () => Promise.resolve(context) } as unknown as OrderContextClient;
  const evidence = {
    read: (file: ReportContextView['files'][number], role: 'original' | 'inspected') => Promise.resolve({ role, fileName: file.fileName, size: file.size, sha256: null, thumbnailPng: null, replaced: false }),
  } as unknown as FileEvidenceReader;
  const storage = {
    buckets: { reports: 'reports' },
    put: (_bucket: string, _key: string, pdf: Buffer) => {
      stored.push(pdf);
      return Promise.resolve();
    },
  } as unknown as ObjectStorage;
  const settings = { issuer: 'Test issuer', faultInjection: { enabled: false, slowMs: 0 } } as ReportsSettings;
  const generate = new GenerateReportUseCase(outcomes, orders, evidence, new PdfRenderer(), storage, new ManualClock(new Date('2026-11-21T00:00:00.000Z')), settings);
  return { execute: (job) => generate.execute(job), failed, stored };
}

describe('GenerateReportUseCase with the render process', () => {
  afterEach(async () => {
    jest.restoreAllMocks();
    configurePdfRenderer({ ...DEFAULT_PDF_RENDER_LIMITS, cpuShare: WORKER_CPU_SHARE });
    await closePdfRenderer();
  });

  it('fails the attempt REPORT_GENERATION_FAILED when the render overruns its CPU budget, logging RENDER_DEADLINE; the next attempt renders', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { execute, failed, stored } = useCase();
    const job = { orderId: '42', locale: 'en-US', attempt: 1 } as GenerateReportJob;
    // 30 ms of CPU: a new render process uses more only to start
    configurePdfRenderer({ deadlineMs: 60_000, cpuShare: 0.0005 });
    await execute(job);
    expect(failed).toEqual(['REPORT_GENERATION_FAILED']);
    expect(stored).toHaveLength(0);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ orderId: '42', renderFailure: ReportRenderFailureCode.DEADLINE }), 'report render failed');

    configurePdfRenderer({ ...DEFAULT_PDF_RENDER_LIMITS, cpuShare: WORKER_CPU_SHARE });
    await execute(job);
    expect(failed).toEqual(['REPORT_GENERATION_FAILED']);
    expect(stored[0]?.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('throws a render the machine failed (the process paused until its deadline: STARVED), so the job is redelivered; the attempt is not failed', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { execute, failed, stored } = useCase();
    const job = { orderId: '42', locale: 'en-US', attempt: 1 } as GenerateReportJob;
    // a first report starts a new render process (closing stops the idle one); it is paused (SIGSTOP) while idle, before
    // the attempt is given to it: it then uses no CPU, however long it waits and however loaded the machine (a new
    // deadline keeps the process)
    await closePdfRenderer();
    await pauseChildStartedBy('/pdf-render-worker.mjs', () => execute(job));
    expect(stored).toHaveLength(1);
    configurePdfRenderer({ deadlineMs: 1500 });
    const error = await execute(job).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkerFailure);
    expect(error).toMatchObject({ code: WorkerFailureCode.STARVED });
    expect(failed).toEqual([]);
    expect(stored).toHaveLength(1);
    // the redelivery renders
    configurePdfRenderer(DEFAULT_PDF_RENDER_LIMITS);
    await execute(job);
    expect(failed).toEqual([]);
    expect(stored).toHaveLength(2);
    expect(stored[1]?.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});
