import { AiDetectionFailedEvent, AiDetectionJob, Events, OrderFailureCode } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { DetectionRunRepository } from './detection-run.repository';

/** Automatic attempts exhausted (storage or a crash kept failing): the file fails with PROCESSING_ERROR. */
@Injectable()
export class DetectionExhaustedUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly runs: DetectionRunRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: AiDetectionJob): Promise<void> {
    const failed: AiDetectionFailedEvent = { orderId: job.orderId, fileId: job.fileId, code: OrderFailureCode.PROCESSING_ERROR };
    await this.transactions.run(async (tx) => {
      const run = await this.runs.start(tx, { accountId: job.accountId, orderId: job.orderId, fileId: job.fileId });
      await this.runs.fail(tx, run.id, OrderFailureCode.PROCESSING_ERROR);
      await this.outbox.add(tx, Events.aiDetectionFailed, failed);
    });
  }
}
