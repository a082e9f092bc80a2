import { Events, PackageCompletedEvent, PackageJob } from '@cp/contracts';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage, writeZipPackage } from '@cp/storage';
import { Injectable } from '@nestjs/common';

/** Packs the outputs of an order into one ZIP in storage (`writeZipPackage`), then says so. */
@Injectable()
export class PackageOrderUseCase {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: PackageJob, context: HandlerContext): Promise<void> {
    await writeZipPackage(this.storage, job.entries, job.output);
    const completed: PackageCompletedEvent = { orderId: job.orderId, objectKey: job.output.key };
    await context.transaction((manager) => this.outbox.add(manager, Events.packageCompleted, completed).then(() => undefined));
  }
}
