import { Jobs, Streams } from '@cp/contracts';
import { HEARTBEAT_JOB_ACK_WAIT_MS, MessagingRuntime } from '@cp/messaging';
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
      message: Jobs.watermarkExtract,
      concurrency: this.config.watermark.concurrency,
      maxAttempts: this.config.watermark.maxAttempts,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      handle: (job, context) => this.extractWatermark.execute(job, context),
      onExhausted: (job) => this.delays.orderDelayed(job.orderId),
    });
  }
}
