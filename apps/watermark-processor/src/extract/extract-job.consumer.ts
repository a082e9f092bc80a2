import { Jobs } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { workerJobConsumer } from '@cp/runtime';
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
    this.messaging.register(
      workerJobConsumer({
        durable: 'watermark-extract',
        message: Jobs.watermarkExtract,
        settings: this.config.watermark,
        handle: (job, context) => this.extractWatermark.execute(job, context),
        onExhausted: (job) => this.delays.orderDelayed(job.orderId),
      }),
    );
  }
}
