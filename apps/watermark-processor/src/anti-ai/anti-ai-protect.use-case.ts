import { ProtectResult } from '@cp/anti-ai';
import { AntiAiFailureCode, AntiAiJob, AntiAiOutputCompletedEvent, AntiAiOutputFailedEvent, Events, OrderFailureCode, StoredObjectRef, V2_THUMBNAIL_BOX } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { FileJob, FileRejection, OversizeOutcome, StoredInput } from '@cp/runtime';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';
import { AntiAiProtector, ProtectionRejected } from './anti-ai-protector';
import { OutputTargetRejected, OutputTargetUploader } from './output-target-uploader';

interface AntiAiTypes {
  job: AntiAiJob;
  state: void;
  result: ProtectResult;
  outcome: AntiAiOutputCompletedEvent;
  code: AntiAiFailureCode | OrderFailureCode;
}

/**
 * One file of an anti-AI order: protect it in the layers of its strength, then store the result or, in
 * zero-copy mode, PUT it to the client's target. A file that can never succeed reports `failed` with a
 * public code (its credit comes back); anything else is retried by the work queue.
 */
@Injectable()
export class AntiAiProtectUseCase extends FileJob<AntiAiTypes> {
  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly issuances: IssuanceRepository,
    private readonly protector: AntiAiProtector,
    private readonly uploader: OutputTargetUploader,
    protected readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  protected maxInputBytes(): number {
    return this.config.watermark.maxInputBytes;
  }

  protected inputsOf(job: AntiAiJob): StoredInput[] {
    return [job.input];
  }

  protected begin(): Promise<void> {
    return Promise.resolve();
  }

  protected oversize(_job: AntiAiJob, size: number): OversizeOutcome<AntiAiTypes> {
    return { reject: { code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE, reason: `input has ${size} bytes` } };
  }

  protected run([input]: Buffer[], job: AntiAiJob): Promise<ProtectResult> {
    return this.protector.protect(input, {
      strength: job.strength,
      title: job.input.fileName,
      rights: job.rights,
      tdmPolicyUrl: job.tdmPolicyUrl,
      payload: () => this.issuePayload(job),
    });
  }

  /** Stored, or in zero-copy mode PUT to the client's target; then the v2 thumbnail, best effort. */
  protected async writeOutput(job: AntiAiJob, result: ProtectResult, _state: void, [input]: Buffer[]): Promise<AntiAiOutputCompletedEvent> {
    const completed: AntiAiOutputCompletedEvent = {
      orderId: job.orderId,
      outputFileId: job.outputFileId,
      delivery: job.outputTarget ? 'zeroCopy' : 'stored',
      size: result.data.length,
      layers: result.layers,
    };
    if (job.outputTarget) {
      await this.uploader.put(job.outputTarget, result.data, result.contentType);
    } else if (job.output) {
      await this.storage.put(job.output.bucket, job.output.key, result.data, result.contentType);
      completed.objectKey = job.output.key;
    } else {
      throw new Error('the job names neither an output nor an output target');
    }
    if (job.thumbnail && (await this.writeThumbnail(input, job.thumbnail))) {
      completed.thumbnail = job.thumbnail;
    }
    return completed;
  }

  protected rejectionOf(error: unknown): FileRejection<AntiAiTypes['code']> | null {
    return error instanceof ProtectionRejected || error instanceof OutputTargetRejected ? { code: error.code, reason: error.message } : null;
  }

  protected async recordCompleted(tx: Transaction, _job: AntiAiJob, completed: AntiAiOutputCompletedEvent): Promise<void> {
    await this.outbox.add(tx, Events.antiAiOutputCompleted, completed);
  }

  protected async recordFailed(tx: Transaction, job: AntiAiJob, code: AntiAiTypes['code']): Promise<void> {
    const failed: AntiAiOutputFailedEvent = { orderId: job.orderId, outputFileId: job.outputFileId, code };
    await this.outbox.add(tx, Events.antiAiOutputFailed, failed);
  }

  /**
   * The v2 detail thumbnail (spec 2.7), made from the input (the protected copy looks the same). Best effort:
   * without it the detail falls back to the input image, so a failure here never fails the file.
   */
  private async writeThumbnail(input: Buffer, target: StoredObjectRef): Promise<boolean> {
    try {
      const webp = await sharp(input, { limitInputPixels: this.config.watermark.maxPixels })
        .rotate()
        .resize(V2_THUMBNAIL_BOX.width, V2_THUMBNAIL_BOX.height, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer();
      await this.storage.put(target.bucket, target.key, webp, 'image/webp');
      return true;
    } catch (error) {
      this.logger.warn({ key: target.key, reason: (error as Error).message }, 'anti-ai thumbnail not written');
      return false;
    }
  }

  /**
   * The opt-out mark's payload is an issuance of the registry embed orders use, so a v3 extract order of
   * a stripped copy names this order and account. Retries reuse the same issuance.
   */
  private async issuePayload(job: AntiAiJob): Promise<bigint> {
    const issuance = await this.transactions.run((manager) =>
      this.issuances.findOrCreate(manager, {
        accountId: job.accountId,
        orderId: job.orderId,
        outputFileId: job.outputFileId,
        watermarkText: antiAiWatermarkText(job),
        algorithm: 'v3',
      }),
    );
    return BigInt(issuance.id);
  }
}

/** What an extract order shows for an anti-AI mark. */
export function antiAiWatermarkText(job: Pick<AntiAiJob, 'orderId' | 'accountId'>): string {
  return `AI training opt-out (anti-AI order ${job.orderId}, account ${job.accountId})`;
}
