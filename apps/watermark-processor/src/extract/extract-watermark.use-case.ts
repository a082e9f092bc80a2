import { Events, ExtractCompletedEvent, ExtractJob, mediaKindOf } from '@cp/contracts';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { Detection, WatermarkEngine } from '../engine/watermark-engine';
import { MarkAlgorithm } from '../issuance/issuance.entity';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

/**
 * Who leaked this file: detect the mark, look its payload up in the issuance registry of the whole
 * service, and show the text only to the account that issued it (spec 2.4).
 */
@Injectable()
export class ExtractWatermarkUseCase {
  constructor(
    private readonly issuances: IssuanceRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly engine: WatermarkEngine,
    private readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: ExtractJob, context: HandlerContext): Promise<void> {
    const algorithm = job.algorithm ?? 'v3';
    const detection = await this.detect(job, algorithm, context.signal);
    let watermarkText: string | null = null;
    if (detection.status === 'detected' && detection.payload !== undefined) {
      const matches = await this.issuances.findByPayload(detection.payload.toString(), algorithm);
      if (matches.length === 1 && matches[0].accountId === job.accountId) {
        watermarkText = matches[0].watermarkText;
      }
    }
    const status = detection.status;
    const completed: ExtractCompletedEvent = {
      orderId: job.orderId,
      detectionStatus: status,
      reportSupported: !detection.capturedFromPdf && (status === 'detected' || status === 'not_detected' || status === 'inconclusive'),
      watermarkText,
      confidence: Math.min(1, Math.max(0, detection.confidence)),
      method: detection.method,
      ...(detection.evidence ? { evidence: detection.evidence } : {}),
    };
    await context.transaction((manager) => this.outbox.add(manager, Events.extractCompleted, completed).then(() => undefined));
  }

  private async detect(job: ExtractJob, algorithm: MarkAlgorithm, signal: AbortSignal): Promise<Detection> {
    const limit = this.config.watermark.maxInputBytes;
    const sizes = await Promise.all([this.storage.stat(job.original.bucket, job.original.key), this.storage.stat(job.inspected.bucket, job.inspected.key)]);
    if (sizes.some((info) => !info)) {
      throw new Error(`files of order ${job.orderId} are not in storage`);
    }
    if (sizes.some((info) => (info?.size ?? 0) > limit)) {
      return { status: 'unsupported', confidence: 0, method: 'none', capturedFromPdf: false };
    }
    const [original, inspected] = await Promise.all([
      this.storage.getBuffer(job.original.bucket, job.original.key, limit),
      this.storage.getBuffer(job.inspected.bucket, job.inspected.key, limit),
    ]);
    return this.engine.extract(inspected, original, mediaKindOf(job.original.fileName), algorithm, signal);
  }
}
