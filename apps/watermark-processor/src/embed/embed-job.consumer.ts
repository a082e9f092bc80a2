import { Jobs, Streams } from '@cp/contracts';
import { HEARTBEAT_JOB_ACK_WAIT_MS, MessagingRuntime } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';
import { EmbedOutputUseCase } from './embed-output.use-case';
import { ProcessingDelays } from './processing-delays.service';

/** The embed work queue, shared by every processor replica (one durable pull consumer). */
@Injectable()
export class EmbedJobConsumer implements OnModuleInit {
  constructor(
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly messaging: MessagingRuntime,
    private readonly embedOutput: EmbedOutputUseCase,
    private readonly delays: ProcessingDelays,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'watermark-embed',
      stream: Streams.jobs.name,
      message: Jobs.watermarkEmbed,
      concurrency: this.config.watermark.concurrency,
      maxAttempts: this.config.watermark.maxAttempts,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      handle: (job, context) => this.embedOutput.execute(job, context),
      onExhausted: (job) => this.delays.outputDelayed(job),
    });
  }
}
