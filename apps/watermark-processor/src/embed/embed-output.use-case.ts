import { EmbedJob, Events, OrderFailureCode, OutputCompletedEvent, OutputFailedEvent, OutputProcessingEvent } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InputRejected, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

/**
 * One output of an embed order: issue the mark (once per output), embed it, store the result, report.
 * A file that can never be processed reports `failed` with a public code; anything else is retried.
 */
@Injectable()
export class EmbedOutputUseCase {
  private readonly logger = new Logger(EmbedOutputUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly issuances: IssuanceRepository,
    private readonly engine: WatermarkEngine,
    private readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: EmbedJob, context: HandlerContext): Promise<void> {
    // Jobs queued before the field existed are v3.
    const algorithm = job.algorithm ?? 'v3';
    const issuance = await this.transactions.run(async (manager) => {
      const issued = await this.issuances.findOrCreate(manager, {
        accountId: job.accountId,
        orderId: job.orderId,
        outputFileId: job.outputFileId,
        watermarkText: job.text,
        algorithm,
      });
      const processing: OutputProcessingEvent = { orderId: job.orderId, outputFileId: job.outputFileId };
      await this.outbox.add(manager, Events.outputProcessing, processing);
      return issued;
    });

    let result: { data: Buffer; contentType: string };
    try {
      const info = await this.storage.stat(job.input.bucket, job.input.key);
      if (!info) {
        throw new Error(`input ${job.input.key} is not in storage`);
      }
      if (info.size > this.config.watermark.maxInputBytes) {
        throw new InputRejected(OrderFailureCode.WATERMARK_FILE_TOO_LARGE, `input has ${info.size} bytes`);
      }
      const input = await this.storage.getBuffer(job.input.bucket, job.input.key, this.config.watermark.maxInputBytes);
      // The issuance records the version it was first made with; retries keep it.
      result = await this.engine.embed(input, BigInt(issuance.id), job.mediaKind, issuance.algorithm, context.signal);
    } catch (error) {
      if (error instanceof InputRejected) {
        this.logger.warn({ orderId: job.orderId, outputFileId: job.outputFileId, code: error.code, reason: error.message }, 'input rejected');
        const failed: OutputFailedEvent = { orderId: job.orderId, outputFileId: job.outputFileId, code: error.code };
        await context.transaction((manager) => this.outbox.add(manager, Events.outputFailed, failed).then(() => undefined));
        return;
      }
      throw error;
    }

    await this.storage.put(job.output.bucket, job.output.key, result.data, result.contentType);
    const completed: OutputCompletedEvent = {
      orderId: job.orderId,
      outputFileId: job.outputFileId,
      objectKey: job.output.key,
      size: result.data.length,
    };
    await context.transaction((manager) => this.outbox.add(manager, Events.outputCompleted, completed).then(() => undefined));
  }
}
