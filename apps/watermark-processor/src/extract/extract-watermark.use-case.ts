import { Events, ExtractCompletedEvent, ExtractJob, mediaKindOf } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { FileJob, FileRejection, OversizeOutcome, StoredInput } from '@cp/runtime';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { Detection, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

interface ExtractTypes {
  job: ExtractJob;
  state: void;
  result: Detection;
  outcome: ExtractCompletedEvent;
  // An extract order has a result for every file it can read, `unsupported` included: it never fails a file.
  code: never;
}

/**
 * Who leaked this file: detect the mark, look its payload up in the issuance registry of the whole
 * service, and show the text only to the account that issued it (spec 2.4).
 */
@Injectable()
export class ExtractWatermarkUseCase extends FileJob<ExtractTypes> {
  constructor(
    private readonly issuances: IssuanceRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly engine: WatermarkEngine,
    protected readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  protected maxInputBytes(): number {
    return this.config.watermark.maxInputBytes;
  }

  /** The inspected copy, then the original it is compared with. */
  protected inputsOf(job: ExtractJob): StoredInput[] {
    return [job.inspected, job.original];
  }

  protected begin(): Promise<void> {
    return Promise.resolve();
  }

  protected oversize(): OversizeOutcome<ExtractTypes> {
    return { result: { status: 'unsupported', confidence: 0, method: 'none', capturedFromPdf: false } };
  }

  protected run([inspected, original]: Buffer[], job: ExtractJob, _state: void, signal: AbortSignal): Promise<Detection> {
    return this.engine.extract(inspected, original, mediaKindOf(job.original.fileName), job.algorithm ?? 'v3', signal);
  }

  /** Nothing is stored: the outcome is the detection, with the watermark text when this account issued the mark. */
  protected async writeOutput(job: ExtractJob, detection: Detection): Promise<ExtractCompletedEvent> {
    let watermarkText: string | null = null;
    if (detection.status === 'detected' && detection.payload !== undefined) {
      const matches = await this.issuances.findByPayload(detection.payload.toString(), job.algorithm ?? 'v3');
      if (matches.length === 1 && matches[0].accountId === job.accountId) {
        watermarkText = matches[0].watermarkText;
      }
    }
    const status = detection.status;
    return {
      orderId: job.orderId,
      detectionStatus: status,
      reportSupported: !detection.capturedFromPdf && (status === 'detected' || status === 'not_detected' || status === 'inconclusive'),
      watermarkText,
      confidence: Math.min(1, Math.max(0, detection.confidence)),
      method: detection.method,
      ...(detection.evidence ? { evidence: detection.evidence } : {}),
    };
  }

  protected rejectionOf(): FileRejection<never> | null {
    return null;
  }

  protected async recordCompleted(tx: Transaction, _job: ExtractJob, completed: ExtractCompletedEvent): Promise<void> {
    await this.outbox.add(tx, Events.extractCompleted, completed);
  }

  protected recordFailed(): Promise<void> {
    return Promise.reject(new Error('an extract order never fails a file'));
  }
}
