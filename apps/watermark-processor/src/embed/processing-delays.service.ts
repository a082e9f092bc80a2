import { EmbedJob, EventSubjects, OrderDelayedEvent, OutputDelayedEvent } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A job that used up its automatic attempts: the order shows `processingDelayed` and waits for recovery. */
@Injectable()
export class ProcessingDelays {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  async outputDelayed(job: EmbedJob): Promise<void> {
    const event: OutputDelayedEvent = { orderId: job.orderId, outputFileId: job.outputFileId };
    await this.dataSource.transaction((manager) => this.outbox.add(manager, EventSubjects.outputDelayed, event));
  }

  async orderDelayed(orderId: string): Promise<void> {
    const event: OrderDelayedEvent = { orderId };
    await this.dataSource.transaction((manager) => this.outbox.add(manager, EventSubjects.orderDelayed, event));
  }
}
