import { ExtractJob, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ProcessingDelays } from '../embed/processing-delays.service';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';
import { ExtractWatermarkUseCase } from './extract-watermark.use-case';

@Injectable()
export class ExtractJobConsumer implements OnModuleInit {
  constructor(
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly messaging: MessagingRuntime,
    private readonly extractWatermark: ExtractWatermarkUseCase,
    private readonly delays: ProcessingDelays,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'watermark-extract',
      stream: Streams.jobs.name,
      filterSubject: ExtractJob.subject,
      payload: ExtractJob,
      concurrency: this.config.watermark.concurrency,
      maxAttempts: this.config.watermark.maxAttempts,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: 120_000,
      handle: (job, context) => this.extractWatermark.execute(job, context),
      onExhausted: (job) => this.delays.orderDelayed(job.orderId),
    });
  }
}
