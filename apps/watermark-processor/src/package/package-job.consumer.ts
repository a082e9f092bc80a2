import { Jobs } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { workerJobConsumer } from '@cp/runtime';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ProcessingDelays } from '../embed/processing-delays.service';
import { PackageOrderUseCase } from './package-order.use-case';

@Injectable()
export class PackageJobConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly packageOrder: PackageOrderUseCase,
    private readonly delays: ProcessingDelays,
  ) {}

  onModuleInit(): void {
    this.messaging.register(
      workerJobConsumer({
        durable: 'watermark-package',
        message: Jobs.watermarkPackage,
        // Streams outputs into one ZIP (no engine, no input limit): one at a time is the consumer's default.
        settings: { maxAttempts: 5 },
        handle: (job, context) => this.packageOrder.execute(job, context),
        // The order waits for its ZIP: it shows `processingDelayed` until an operator replays the job.
        onExhausted: (job) => this.delays.orderDelayed(job.orderId),
      }),
    );
  }
}
