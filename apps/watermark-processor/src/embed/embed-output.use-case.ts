import { createHash } from 'node:crypto';
import { EmbedJob, Events, OrderFailureCode, OutputCompletedEvent, OutputFailedEvent, OutputProcessingEvent } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { FileJob, FileRejection, OversizeOutcome, StoredInput } from '@cp/runtime';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { InputRejected, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceEntity } from '../issuance/issuance.entity';
import { IssuanceRepository, payloadOf } from '../issuance/issuance.repository';
import { LastOutputPackageService } from '../package/last-output-package.service';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

interface EmbedTypes {
  job: EmbedJob;
  state: IssuanceEntity;
  result: { data: Buffer; contentType: string };
  outcome: OutputCompletedEvent;
  code: OrderFailureCode;
}

/**
 * One output of an embed order: issue the mark (once per output), embed it, store the result (and the order's
 * ZIP when it is the last output of a small order: `LastOutputPackageService`), report.
 * A file that can never be processed reports `failed` with a public code; anything else is retried.
 */
@Injectable()
export class EmbedOutputUseCase extends FileJob<EmbedTypes> {
  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly issuances: IssuanceRepository,
    private readonly engine: WatermarkEngine,
    protected readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
    private readonly packages: LastOutputPackageService,
  ) {
    super();
  }

  protected maxInputBytes(): number {
    return this.config.watermark.maxInputBytes;
  }

  protected inputsOf(job: EmbedJob): StoredInput[] {
    return [job.input];
  }

  protected begin(job: EmbedJob): Promise<IssuanceEntity> {
    return this.transactions.run(async (tx) => {
      const issued = await this.issuances.findOrCreate(tx, {
        accountId: job.accountId,
        orderId: job.orderId,
        outputFileId: job.outputFileId,
        watermarkText: job.text,
        // Jobs queued before the field existed are v3.
        algorithm: job.algorithm ?? 'v3',
        // issue 36: the original it was made from, and a scrambled payload (recipients' marks near orthogonal)
        inputKey: job.input.key,
        scrambled: true,
      });
      const processing: OutputProcessingEvent = { orderId: job.orderId, outputFileId: job.outputFileId };
      await this.outbox.add(tx, Events.outputProcessing, processing);
      return issued;
    });
  }

  protected oversize(_job: EmbedJob, size: number): OversizeOutcome<EmbedTypes> {
    return { reject: { code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE, reason: `input has ${size} bytes` } };
  }

  protected async run([input]: Buffer[], job: EmbedJob, issuance: IssuanceEntity, signal: AbortSignal): Promise<EmbedTypes['result']> {
    // issue 36: an extract order finds the recipients of the same original by this hash
    await this.issuances.recordInputHash(issuance.id, createHash('sha256').update(input).digest('hex'));
    // The issuance records the version and payload scheme it was first made with; retries keep them.
    return this.engine.embed(input, payloadOf(issuance), job.mediaKind, issuance.algorithm, signal);
  }

  protected async writeOutput(job: EmbedJob, result: EmbedTypes['result']): Promise<OutputCompletedEvent> {
    await this.storage.put(job.output.bucket, job.output.key, result.data, result.contentType);
    // Only after the output is stored: a job that finishes at the same moment then sees it.
    const packageKey = await this.packages.packIfLast(job);
    return { orderId: job.orderId, outputFileId: job.outputFileId, objectKey: job.output.key, size: result.data.length, ...(packageKey ? { packageKey } : {}) };
  }

  protected rejectionOf(error: unknown): FileRejection<OrderFailureCode> | null {
    return error instanceof InputRejected ? { code: error.code, reason: error.message } : null;
  }

  protected async recordCompleted(tx: Transaction, _job: EmbedJob, completed: OutputCompletedEvent): Promise<void> {
    await this.outbox.add(tx, Events.outputCompleted, completed);
  }

  protected async recordFailed(tx: Transaction, job: EmbedJob, code: OrderFailureCode): Promise<void> {
    const failed: OutputFailedEvent = { orderId: job.orderId, outputFileId: job.outputFileId, code };
    await this.outbox.add(tx, Events.outputFailed, failed);
  }
}
