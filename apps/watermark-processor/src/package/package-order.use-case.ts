import { Events, PackageCompletedEvent, PackageJob } from '@cp/contracts';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import archiver from 'archiver';
import { once } from 'node:events';

/** Streams the outputs of an order into one ZIP in storage, entry by entry (never the whole ZIP in memory). */
@Injectable()
export class PackageOrderUseCase {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: PackageJob, context: HandlerContext): Promise<void> {
    // Images and PDFs are already compressed: store them, do not deflate again.
    const archive = archiver('zip', { store: true });
    const upload = this.storage.put(job.output.bucket, job.output.key, archive, 'application/zip').catch((error: unknown) => {
      archive.abort();
      throw error;
    });
    const appendEntries = async (): Promise<void> => {
      for (const entry of job.entries) {
        const added = once(archive, 'entry');
        archive.append(await this.storage.get(entry.bucket, entry.key), { name: entry.fileName });
        await added;
      }
      await archive.finalize();
    };
    // Both sides are awaited together: a failed upload or a missing entry fails the job, never the process.
    await Promise.all([upload, appendEntries()]);
    const completed: PackageCompletedEvent = { orderId: job.orderId, objectKey: job.output.key };
    await context.transaction((manager) => this.outbox.add(manager, Events.packageCompleted, completed).then(() => undefined));
  }
}
