import { Jobs, Streams } from '@cp/contracts';
import { HEARTBEAT_JOB_ACK_WAIT_MS, MessagingRuntime } from '@cp/messaging';
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
    this.messaging.register({
      durable: 'watermark-package',
      stream: Streams.jobs.name,
      message: Jobs.watermarkPackage,
      maxAttempts: 5,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      handle: (job, context) => this.packageOrder.execute(job, context),
      // The order waits for its ZIP: it shows `processingDelayed` until an operator replays the job.
      onExhausted: (job) => this.delays.orderDelayed(job.orderId),
    });
  }
}
