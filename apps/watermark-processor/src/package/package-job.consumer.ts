import { PackageJob, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { PackageOrderUseCase } from './package-order.use-case';

@Injectable()
export class PackageJobConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly packageOrder: PackageOrderUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'watermark-package',
      stream: Streams.jobs.name,
      filterSubject: PackageJob.subject,
      payload: PackageJob,
      maxAttempts: 5,
      backoffMs: [2000, 10_000, 60_000],
      ackWaitMs: 300_000,
      handle: (job, context) => this.packageOrder.execute(job, context),
    });
  }
}
