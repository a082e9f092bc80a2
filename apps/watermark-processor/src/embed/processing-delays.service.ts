import { EmbedJob, Events, OrderDelayedEvent, OutputDelayedEvent } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** A job that used up its automatic attempts: the order shows `processingDelayed` and waits for recovery. */
@Injectable()
export class ProcessingDelays {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async outputDelayed(job: Pick<EmbedJob, 'orderId' | 'outputFileId'>): Promise<void> {
    const event: OutputDelayedEvent = { orderId: job.orderId, outputFileId: job.outputFileId };
    await this.transactions.run((manager) => this.outbox.add(manager, Events.outputDelayed, event));
  }

  async orderDelayed(orderId: string): Promise<void> {
    const event: OrderDelayedEvent = { orderId };
    await this.transactions.run((manager) => this.outbox.add(manager, Events.orderDelayed, event));
  }
}
