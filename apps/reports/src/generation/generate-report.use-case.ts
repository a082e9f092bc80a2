import { isWorkerMachineFailure } from '@cp/bounded-worker';
import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, GenerateReportJob, ObjectKeys, ReportContextView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { inSpan, orderAttributes } from '@cp/tracing';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PdfRenderer } from '../rendering/pdf-renderer';
import { AnalysedImage, buildAiDetectionReportDocument } from '../rendering/ai-detection-report-document';
import { buildReportDocument, ReportOrderFields } from '../rendering/report-document';
import { ReportDefinition } from '../rendering/report-layouts';
import { OrderContextClient } from '../reports/order-context.client';
import { hasReportableResult } from '../reports/report-policy';
import { ReportState } from '../domain/report';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';
import { FileEvidenceReader } from './file-evidence.reader';
import { ReportGenerationError, ReportNotAvailableError, ReportRenderError } from './generation-errors';
import { ReportOutcomes } from './report-outcomes.service';

/** Object key of one attempt's PDF: under the order's prefix, so retention deletes it with the order. */
export function reportObjectKey(row: Pick<ReportState, 'accountId' | 'orderId' | 'locale' | 'attempt'>): string {
  // A random suffix: two deliveries of one attempt never overwrite each other's object.
  return `${ObjectKeys.orderPrefix(row.accountId, row.orderId)}reports/${row.locale}/attempt-${row.attempt}-${randomUUID().slice(0, 8)}.pdf`;
}

/**
 * One attempt of one report: context from the orders service, evidence from storage, PDF into the reports
 * bucket, then `completed`. Permanent problems fail the attempt at once; anything else is thrown so the work
 * queue redelivers the job (a crash mid-way is redelivered after the ack wait).
 */
@Injectable()
export class GenerateReportUseCase {
  private readonly logger = new Logger(GenerateReportUseCase.name);

  constructor(
    private readonly outcomes: ReportOutcomes,
    private readonly orders: OrderContextClient,
    private readonly evidence: FileEvidenceReader,
    private readonly renderer: PdfRenderer,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {}

  async execute(job: GenerateReportJob): Promise<void> {
    const row = await this.outcomes.start(job.orderId, job.locale, job.attempt);
    if (!row) {
      return;
    }
    try {
      const pdf = await inSpan('report render', { attributes: { ...orderAttributes({ orderId: row.orderId, accountId: row.accountId }), 'cp.report.locale': row.locale, 'cp.report.type': row.reportType } }, () => this.generate(row));
      const key = reportObjectKey(row);
      const bucket = this.storage.buckets.reports;
      await this.storage.put(bucket, key, pdf, 'application/pdf');
      await this.outcomes.complete(row, { bucket, key, sha256: createHash('sha256').update(pdf).digest('hex'), size: pdf.length });
    } catch (error) {
      if (error instanceof ReportNotAvailableError) {
        await this.outcomes.fail(row.orderId, row.locale, row.attempt, 'REPORT_NOT_AVAILABLE');
      } else if (error instanceof ReportGenerationError) {
        await this.outcomes.fail(row.orderId, row.locale, row.attempt, 'REPORT_GENERATION_FAILED');
      } else {
        throw error;
      }
    }
  }

  private async generate(row: Readonly<ReportState>): Promise<Buffer> {
    const context = await this.context(row);
    if (context.expired || !hasReportableResult(context, row.reportType)) {
      throw new ReportNotAvailableError(`order ${row.orderId} no longer has a reportable result`);
    }
    const definition = row.reportType === 'aiDetection' ? await this.aiDetectionDocument(row, context) : await this.watermarkDocument(row, context);
    try {
      return await this.renderer.render(definition);
    } catch (error) {
      if (error instanceof ReportRenderError) {
        // the render process ran out of time or memory, or died: the attempt fails, the service goes on
        this.logger.warn({ orderId: row.orderId, locale: row.locale, attempt: row.attempt, renderFailure: error.code }, 'report render failed');
        throw error;
      }
      if (isWorkerMachineFailure(error)) {
        // the machine, not the report, failed the render (starved of CPU, killed by the kernel): the job is redelivered
        this.logger.warn({ orderId: row.orderId, locale: row.locale, attempt: row.attempt, renderFailure: error.code }, 'report render failed for the machine; retried');
        throw error;
      }
      throw new ReportGenerationError(`rendering the ${row.locale} report of order ${row.orderId} failed`, { cause: error });
    }
  }

  /** Every analysed image: its input hashed and previewed, its heatmap (WebP in storage) as PNG for the PDF. */
  private async aiDetectionDocument(row: Readonly<ReportState>, context: ReportContextView): Promise<ReportDefinition> {
    const detection = context.aiDetection;
    if (!detection) {
      throw new ReportNotAvailableError(`order ${row.orderId} has no analyses`);
    }
    await this.injectFaults(detection.files[0]?.fileName ?? '');
    const images: AnalysedImage[] = [];
    for (const file of detection.files) {
      const input = await this.evidence.read(file.input, 'input');
      if (context.mode === 'live' && !input.sha256) {
        throw new ReportNotAvailableError(`order ${row.orderId}: input files are gone`);
      }
      const heatmapPng = file.heatmap ? await this.evidence.picture(file.heatmap) : null;
      images.push({ ...file, input, heatmapPng });
    }
    return buildAiDetectionReportDocument({ ...this.orderFields(row, context), probability: detection.probability, category: detection.category, images });
  }

  private async watermarkDocument(row: Readonly<ReportState>, context: ReportContextView): Promise<ReportDefinition> {
    if (!context.result || !context.detectionStatus) {
      throw new ReportNotAvailableError(`order ${row.orderId} no longer has a reportable result`);
    }
    const original = context.files.find((file) => file.role === 'original');
    const inspected = context.files.find((file) => file.role === 'inspected');
    if (!original || !inspected) {
      throw new ReportNotAvailableError(`order ${row.orderId} lacks its original or inspected file`);
    }
    await this.injectFaults(inspected.fileName);
    const [originalEvidence, inspectedEvidence] = await Promise.all([this.evidence.read(original, 'original'), this.evidence.read(inspected, 'inspected')]);
    if (context.mode === 'live' && (!originalEvidence.sha256 || !inspectedEvidence.sha256)) {
      // A live order's files are kept until retention; without them the report would prove nothing.
      throw new ReportNotAvailableError(`order ${row.orderId}: input files are gone`);
    }
    return buildReportDocument({
      ...this.orderFields(row, context),
      detectionStatus: context.detectionStatus,
      watermarkText: context.result.watermarkText,
      confidence: context.confidence,
      method: context.method,
      evidence: context.evidence ?? null,
      original: originalEvidence,
      inspected: inspectedEvidence,
    });
  }

  /** What every report prints about its order and itself. */
  private orderFields(row: Readonly<ReportState>, context: ReportContextView): ReportOrderFields {
    return {
      locale: row.locale,
      orderId: context.orderId,
      orderName: context.orderName,
      mode: context.mode,
      createdAt: context.createdAt,
      completedAt: context.completedAt,
      expiresAt: context.expiresAt,
      issuer: this.settings.issuer,
      generatedAt: this.clock.now(),
      reportReference: `RPT-${row.orderId}-${row.locale}-${row.attempt}`,
    };
  }

  private async context(row: Readonly<ReportState>): Promise<ReportContextView> {
    try {
      return await this.orders.get({ accountId: row.accountId, mode: row.mode }, row.orderId);
    } catch (error) {
      if (error instanceof DomainException && error.code === ErrorCode.RESOURCE_NOT_FOUND) {
        throw new ReportNotAvailableError(`order ${row.orderId} is gone`);
      }
      throw error;
    }
  }

  /** Test-only switch (refused in production): file-name markers make an attempt fail or pause mid-generation. */
  private async injectFaults(inspectedFileName: string): Promise<void> {
    const faults = this.settings.faultInjection;
    if (!faults.enabled) {
      return;
    }
    if (inspectedFileName.includes('report-fault')) {
      throw new ReportGenerationError('injected generation failure');
    }
    if (inspectedFileName.includes('report-slow')) {
      await sleep(faults.slowMs);
    }
  }
}
