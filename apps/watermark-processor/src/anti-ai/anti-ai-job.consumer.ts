import { Jobs } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { workerJobConsumer } from '@cp/runtime';
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
    this.messaging.register(
      workerJobConsumer({
        durable: 'watermark-anti-ai',
        message: Jobs.watermarkAntiAi,
        settings: this.config.watermark,
        // Kept as it was: this consumer never moved to the heartbeat ack wait.
        ackWaitMs: 120_000,
        handle: (job, context) => this.protect.execute(job, context),
        onExhausted: (job) => this.delays.outputDelayed(job),
      }),
    );
  }
}
