import { Jobs } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { workerJobConsumer } from '@cp/runtime';
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
    this.messaging.register(
      workerJobConsumer({
        durable: 'watermark-embed',
        message: Jobs.watermarkEmbed,
        settings: this.config.watermark,
        handle: (job, context) => this.embedOutput.execute(job, context),
        onExhausted: (job) => this.delays.outputDelayed(job),
      }),
    );
  }
}
