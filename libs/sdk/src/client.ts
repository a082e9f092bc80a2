import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import createClient, { Client } from 'openapi-fetch';
import { ContentProtectionError, ErrorCodeValue } from './errors';
import { orderFailureHint } from './failure-hints';
import type { components, paths } from './generated/openapi';
import { openUrl, outputFileName, saveStream, unzipOutputs } from './results';
import { FileSource, resolveSource, ResolvedSource, uploadTo } from './sources';
import { DEFAULT_RETRY, retryAfterSeconds, retryingFetch, RetryPolicy, sleep } from './transport';

export type Schemas = components['schemas'];
export type WatermarkOrder = Schemas['WatermarkOrder'];
export type ExtractResult = Schemas['ExtractResult'];
export type Report = Schemas['Report'];
export type ReportLocale = Report['locale'];
export type Webhook = Schemas['Webhook'];
export type CreatedWebhook = Schemas['CreatedWebhook'];
export type CreateEmbedOrderBody = Schemas['CreateEmbedOrderDto'];
export type CreateExtractOrderBody = Schemas['CreateExtractOrderDto'];
export type CreateAntiAiOrderBody = Schemas['CreateAntiAiOrderDto'];
export type AntiAiOrderCreated = Schemas['AntiAiOrderCreated'];
export type CreateAiDetectionOrderBody = Schemas['CreateAiDetectionOrderDto'];
export type AiDetectionOrderCreated = Schemas['AiDetectionOrderCreated'];
export type AiDetectionConfirm = Schemas['AiDetectionConfirm'];

export interface ClientOptions {
  /** `sk_live_…` or `sk_test_…`. */
  apiKey: string;
  /** e.g. `http://127.0.0.1:3000` (no trailing path). */
  baseUrl: string;
  retry?: Partial<RetryPolicy>;
  /** Polling of orders and reports: first interval, growing ×1.5 up to `maxPollIntervalMs`. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** For tests and special transports. */
  fetch?: typeof fetch;
}

/** What a long workflow reports while it runs (CLI progress bars are drawn from these). */
export type ProgressEvent =
  | { stage: 'created'; orderId: string }
  | { stage: 'upload'; fileName: string; sent: number; total: number }
  | { stage: 'processing'; orderId: string; status: string; done: number; total: number }
  | { stage: 'download'; orderId: string }
  | { stage: 'report'; orderId: string; status: string };

export interface WaitOptions {
  /** Default 10 minutes. */
  timeoutMs?: number;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ProtectOptions extends WaitOptions {
  files: FileSource[];
  /** One watermark text per recipient; each file gets one output per recipient. */
  recipients: string[];
  /** Write the outputs here (unpacked); without it each output offers `open()` for a stream. */
  outDir?: string;
  /** Reuse to make a retried protect() return the same order; a new UUID by default. */
  idempotencyKey?: string;
}

export interface ProtectedOutput {
  fileId: string;
  recipient: string;
  inputFileName: string;
  fileName: string;
  /** Set when `outDir` was given. */
  path?: string;
  /** A fresh download of this one output (URL valid 300 s). */
  open: () => Promise<Readable>;
}

export interface ProtectResult {
  orderId: string;
  order: WatermarkOrder;
  outputs: ProtectedOutput[];
}

export interface TraceOptions extends WaitOptions {
  original: FileSource;
  suspect: FileSource;
  idempotencyKey?: string;
}

export interface TraceResult {
  orderId: string;
  order: WatermarkOrder;
  result: ExtractResult;
}

export interface ReportOptions extends WaitOptions {
  /** Also write the PDF to this file. */
  outFile?: string;
}

export interface ReportResult {
  report: Report;
  pdf: Buffer;
  path?: string;
}

const TERMINAL = new Set(['complete', 'failed', 'expired']);

interface ApiResult<T> {
  data?: { data: T };
  error?: unknown;
  response: Response;
}

/**
 * Typed client of the Content Protection Order API. Low-level calls mirror the operations of the OpenAPI
 * document (types generated from it); `protect`, `trace` and `report` are the workflows a user wants in one call.
 */
export class ContentProtectionClient {
  /** The generated, fully typed client (every operation of the document). */
  readonly api: Client<paths>;
  private readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly pollIntervalMs: number;
  private readonly maxPollIntervalMs: number;

  constructor(options: ClientOptions) {
    if (!options.apiKey) {
      throw new ContentProtectionError('AUTH_NOT_AUTHENTICATED', 'an API key is required');
    }
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.maxPollIntervalMs = options.maxPollIntervalMs ?? 5_000;
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { Authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch(this.retry, this.fetchImpl),
    });
  }

  // ---- operations ----

  async createEmbedOrder(body: Omit<CreateEmbedOrderBody, 'idempotencyKey'> & { idempotencyKey?: string }): Promise<WatermarkOrder> {
    return this.unwrap(await this.api.POST('/api/v3/orders/wtr-embed', { body: { ...body, idempotencyKey: body.idempotencyKey ?? randomUUID() } }));
  }

  async createExtractOrder(body: Omit<CreateExtractOrderBody, 'idempotencyKey'> & { idempotencyKey?: string }): Promise<WatermarkOrder> {
    return this.unwrap(await this.api.POST('/api/v3/orders/wtr-extract', { body: { ...body, idempotencyKey: body.idempotencyKey ?? randomUUID() } }));
  }

  /** An anti-AI order (docs/anti-ai.md): upload each file to its `uploadUrl`, then `waitForOrder` and download as for embed. */
  async createAntiAiOrder(body: Omit<CreateAntiAiOrderBody, 'idempotencyKey'> & { idempotencyKey?: string }): Promise<AntiAiOrderCreated> {
    return this.unwrap(await this.api.POST('/api/v2/orders/anti-ai', { body: { ...body, idempotencyKey: body.idempotencyKey ?? randomUUID() } }));
  }

  /** An AI detection order: upload each file to its `uploadUrl`, then `confirmAiDetectionOrder` starts the analysis. */
  async createAiDetectionOrder(body: Omit<CreateAiDetectionOrderBody, 'idempotencyKey'> & { idempotencyKey?: string }): Promise<AiDetectionOrderCreated> {
    return this.unwrap(await this.api.POST('/api/v2/orders/ai-detection', { body: { ...body, idempotencyKey: body.idempotencyKey ?? randomUUID() } }));
  }

  /** Spec 4.15; the generated key is reused when the request is retried, so a retry never reprocesses. */
  async confirmAiDetectionOrder(orderId: string, idempotencyKey: string = randomUUID()): Promise<AiDetectionConfirm> {
    return this.unwrap(await this.api.POST('/api/v2/orders/ai-detection/confirm', { body: { idempotencyKey, orderId } }));
  }

  async getOrder(orderId: string): Promise<WatermarkOrder> {
    return this.unwrap(await this.api.GET('/api/v3/orders/{orderId}', { params: { path: { orderId } } }));
  }

  async getDownloadUrl(orderId: string, outputFileId?: string): Promise<string> {
    const result = outputFileId
      ? await this.api.GET('/api/v3/orders/{orderId}/files/{fileId}/download', { params: { path: { orderId, fileId: outputFileId } } })
      : await this.api.GET('/api/v3/orders/{orderId}/download', { params: { path: { orderId } } });
    return this.unwrap(result).downloadUrl;
  }

  /** Asks for a report; `started` tells whether a new attempt was queued (202). */
  async requestReport(orderId: string, locale: ReportLocale): Promise<{ started: boolean; report: Report }> {
    const result = await this.api.POST('/api/v3/orders/{orderId}/reports', { params: { path: { orderId } }, body: { locale } });
    return { started: result.response.status === 202, report: this.unwrap(result) };
  }

  async getReport(orderId: string, locale: ReportLocale): Promise<Report> {
    return this.unwrap(await this.api.GET('/api/v3/orders/{orderId}/reports/{locale}', { params: { path: { orderId, locale } } }));
  }

  async createWebhook(name: string, url: string): Promise<CreatedWebhook> {
    return this.unwrap(await this.api.POST('/api/v2/orders/webhooks', { body: { name, url } }));
  }

  async listWebhooks(): Promise<Webhook[]> {
    return this.unwrap(await this.api.GET('/api/v2/orders/webhooks'));
  }

  async deleteWebhook(webhookId: number): Promise<void> {
    this.unwrap(await this.api.DELETE('/api/v2/orders/webhooks/{webhookId}', { params: { path: { webhookId } } }));
  }

  /** PUTs one file to its upload URL, streamed. */
  async upload(uploadUrl: string, source: FileSource, onBytes?: (sent: number) => void): Promise<void> {
    await uploadTo(uploadUrl, await resolveSource(source), onBytes, this.retry, this.fetchImpl);
  }

  /** Polls the order (with growing intervals) until it is `complete`, `failed` or `expired`. */
  async waitForOrder(orderId: string, options: WaitOptions = {}): Promise<WatermarkOrder> {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    let interval = this.pollIntervalMs;
    for (;;) {
      const order = await this.getOrder(orderId);
      const done = order.outputs.filter((output) => output.status === 'completed' || output.status === 'failed').length;
      options.onProgress?.({ stage: 'processing', orderId, status: order.status, done, total: order.outputs.length });
      if (TERMINAL.has(order.status)) {
        return order;
      }
      if (Date.now() + interval > deadline) {
        throw new ContentProtectionError('WAIT_TIMEOUT', `order ${orderId} is still ${order.status}`, { orderId });
      }
      await sleep(interval);
      interval = Math.min(this.maxPollIntervalMs, Math.round(interval * 1.5));
    }
  }

  // ---- workflows ----

  /**
   * Watermarks every file once per recipient: creates the embed order, streams the uploads, waits, then
   * downloads and unpacks the outputs into `outDir` (or hands back a stream opener per output).
   */
  async protect(options: ProtectOptions): Promise<ProtectResult> {
    if (options.files.length === 0 || options.recipients.length === 0) {
      throw new ContentProtectionError('VALIDATION_FAILED', 'protect needs at least one file and one recipient');
    }
    const sources = await Promise.all(options.files.map(resolveSource));
    const created = await this.createEmbedOrder({
      idempotencyKey: options.idempotencyKey,
      files: sources.map((source) => ({
        fileName: source.name,
        ...(source.url ? { originalFileUrl: source.url } : {}),
        watermarks: options.recipients.map((text) => ({ text })),
      })),
    });
    options.onProgress?.({ stage: 'created', orderId: created.orderId });
    await this.uploadAll(created, sources, options);
    const order = await this.finished(created.orderId, options);

    const inputNames = new Map(created.files.map((file, index) => [file.fileId, sources[index].name]));
    const outputs: ProtectedOutput[] = order.outputs.map((output) => {
      const inputFileName = inputNames.get(output.inputFileId) ?? output.inputFileId;
      return {
        fileId: output.fileId,
        recipient: output.watermarkText,
        inputFileName,
        fileName: outputFileName(inputFileName, output.fileId),
        open: async () => openUrl(await this.getDownloadUrl(order.orderId, output.fileId), this.fetchImpl),
      };
    });
    if (options.outDir) {
      options.onProgress?.({ stage: 'download', orderId: order.orderId });
      await this.saveOutputs(order.orderId, outputs, options.outDir);
    }
    return { orderId: order.orderId, order, outputs };
  }

  /** Checks a suspect copy against its original: creates the extract order, uploads both, waits for the result. */
  async trace(options: TraceOptions): Promise<TraceResult> {
    const [original, suspect] = await Promise.all([resolveSource(options.original), resolveSource(options.suspect)]);
    if (original.url || suspect.url) {
      throw new ContentProtectionError('VALIDATION_FAILED', 'trace uploads both files: give paths or bytes, not URLs');
    }
    const created = await this.createExtractOrder({
      idempotencyKey: options.idempotencyKey,
      file: { fileName: suspect.name, originalFile: { fileName: original.name } },
    });
    options.onProgress?.({ stage: 'created', orderId: created.orderId });
    await this.uploadAll(created, [original, suspect], options);
    const order = await this.finished(created.orderId, options);
    if (!order.result) {
      throw new ContentProtectionError('UNEXPECTED_RESPONSE', `order ${order.orderId} is complete without a result`, { orderId: order.orderId });
    }
    return { orderId: order.orderId, order, result: order.result };
  }

  /** Requests the PDF report of an extract order in one locale, waits for it and downloads it. */
  async report(orderId: string, locale: ReportLocale, options: ReportOptions = {}): Promise<ReportResult> {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    let { report } = await this.requestReport(orderId, locale).catch((error: unknown) => this.explainReportRefusal(orderId, error));
    let interval = this.pollIntervalMs;
    while (report.status === 'queued' || report.status === 'processing') {
      options.onProgress?.({ stage: 'report', orderId, status: report.status });
      if (Date.now() + interval > deadline) {
        throw new ContentProtectionError('WAIT_TIMEOUT', `report ${locale} of order ${orderId} is still ${report.status}`, { orderId });
      }
      await sleep(interval);
      interval = Math.min(this.maxPollIntervalMs, Math.round(interval * 1.5));
      report = await this.getReport(orderId, locale);
    }
    options.onProgress?.({ stage: 'report', orderId, status: report.status });
    if (report.status === 'failed' || !report.download) {
      throw new ContentProtectionError('REPORT_FAILED', `report ${locale} of order ${orderId} failed: ${report.failure?.code ?? 'unknown'}`, { orderId });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of await openUrl(report.download.url, this.fetchImpl)) {
      chunks.push(chunk as Buffer);
    }
    const pdf = Buffer.concat(chunks);
    // The service keeps the PDF's hash with the report (its verification section says so): what arrived is that PDF.
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    if (report.download.sha256 && sha256 !== report.download.sha256) {
      throw new ContentProtectionError('TRANSFER_FAILED', `report ${locale} of order ${orderId}: the downloaded PDF's SHA-256 ${sha256} is not the one the service keeps (${report.download.sha256})`, { orderId });
    }
    if (options.outFile) {
      await writeFile(options.outFile, pdf).catch((error: unknown) => {
        throw new ContentProtectionError('FILE_ERROR', `cannot write ${options.outFile}: ${(error as Error).message}`, { cause: error });
      });
    }
    return { report, pdf, ...(options.outFile ? { path: options.outFile } : {}) };
  }

  // ---- internals ----

  private async uploadAll(order: WatermarkOrder, sources: ResolvedSource[], options: WaitOptions): Promise<void> {
    for (const [index, file] of order.files.entries()) {
      const source = sources[index];
      if (source.url || !file.uploadUrl) {
        continue; // fetched by the service, or already uploaded (an idempotent replay of the same order)
      }
      const total = source.size ?? 0;
      options.onProgress?.({ stage: 'upload', fileName: source.name, sent: 0, total });
      await uploadTo(file.uploadUrl, source, (sent) => options.onProgress?.({ stage: 'upload', fileName: source.name, sent, total }), this.retry, this.fetchImpl);
    }
  }

  private async finished(orderId: string, options: WaitOptions): Promise<WatermarkOrder> {
    const order = await this.waitForOrder(orderId, options);
    if (order.status !== 'complete') {
      // The order's public failure code, when it failed (an order that expired unfinished has none).
      // With its English hint: the API's own errorMessage is the contract's Korean guidance.
      const hint = order.failure ? orderFailureHint(order.failure.errorCode) : undefined;
      const reason = order.failure ? ` (${order.failure.errorCode}${hint ? `: ${hint}` : ''})` : '';
      throw new ContentProtectionError('ORDER_FAILED', `order ${orderId} ended ${order.status}${reason}`, { orderId });
    }
    return order;
  }

  private async saveOutputs(orderId: string, outputs: ProtectedOutput[], outDir: string): Promise<void> {
    if (outputs.length === 1) {
      const [output] = outputs;
      output.path = path.join(outDir, output.fileName);
      await saveStream(await openUrl(await this.getDownloadUrl(orderId), this.fetchImpl), output.path);
      return;
    }
    // Two or more outputs come as one ZIP: fetch it to a temporary file (unzipping needs random access).
    const scratch = await mkdtemp(path.join(tmpdir(), 'cp-sdk-'));
    try {
      const archive = path.join(scratch, `${orderId}-watermarked.zip`);
      await saveStream(await openUrl(await this.getDownloadUrl(orderId), this.fetchImpl), archive);
      const written = await unzipOutputs(archive, outDir);
      for (const output of outputs) {
        output.path = written.get(output.fileId);
        if (!output.path) {
          throw new ContentProtectionError('UNEXPECTED_RESPONSE', `output ${output.fileId} is missing from the archive`, { orderId });
        }
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * The API answers a report it will not make with a bare 400 `VALIDATION_FAILED` (its error body carries only a
   * code): the order says why, so the error does too. Any other error, or one the order does not explain, as it was.
   */
  private async explainReportRefusal(orderId: string, error: unknown): Promise<never> {
    if (!(error instanceof ContentProtectionError) || error.code !== 'VALIDATION_FAILED') throw error;
    const order = await this.getOrder(orderId).catch(() => null);
    const why =
      order === null
        ? null
        : order.status !== 'complete'
          ? `order ${orderId} is ${order.status}: a report is made once the order is complete`
          : order.result === null
            ? `order ${orderId} has no detection result: reports are made for extract (trace) orders, not for embed orders`
            : !order.result.reportSupported
              ? `order ${orderId} inspected an image captured from a PDF: no report is made for it`
              : null;
    throw why === null ? error : new ContentProtectionError('VALIDATION_FAILED', `${error.message}: ${why}`, { orderId, status: 400 });
  }

  private unwrap<T>(result: ApiResult<T>): T {
    if (result.data !== undefined && result.response.ok) {
      return result.data.data;
    }
    const status = result.response.status;
    const code = (result.error as { code?: unknown } | undefined)?.code;
    const retryAfter = retryAfterSeconds(result.response.headers);
    if (typeof code === 'string') {
      throw new ContentProtectionError(code as ErrorCodeValue, `${code} (HTTP ${status})`, { status, ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}) });
    }
    throw new ContentProtectionError('UNEXPECTED_RESPONSE', `HTTP ${status} without an error code`, { status });
  }
}

