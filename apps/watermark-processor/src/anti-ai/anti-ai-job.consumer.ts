import { Jobs, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';
import { ProcessingDelays } from '../embed/processing-delays.service';
import { AntiAiProtectUseCase } from './anti-ai-protect.use-case';

/** The anti-AI work queue, shared by every processor replica (one durable pull consumer). */
@Injectable()
export class AntiAiJobConsumer implements OnModuleInit {
  constructor(
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly messaging: MessagingRuntime,
    private readonly protect: AntiAiProtectUseCase,
    private readonly delays: ProcessingDelays,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'watermark-anti-ai',
      stream: Streams.jobs.name,
      message: Jobs.watermarkAntiAi,
      concurrency: this.config.watermark.concurrency,
      maxAttempts: this.config.watermark.maxAttempts,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: 120_000,
      handle: (job, context) => this.protect.execute(job, context),
      onExhausted: (job) => this.delays.outputDelayed(job),
    });
  }
}
