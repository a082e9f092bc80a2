import { EventSubjects, FetchSourceJob, FileFailedEvent, OrderFailureCode, Streams } from '@cp/contracts';
import { MessagingRuntime, OutboxWriter } from '@cp/messaging';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { SourceFetcher, SourceFetchError } from './source-fetcher';

/** Fetches files given by URL (job.uploads.fetch); a file that cannot be fetched fails its order. */
@Injectable()
export class FetchSourceConsumer implements OnModuleInit {
  private readonly logger = new Logger(FetchSourceConsumer.name);

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly messaging: MessagingRuntime,
    private readonly fetcher: SourceFetcher,
    private readonly markUploaded: MarkUploadedUseCase,
    private readonly outbox: OutboxWriter,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-fetch-source',
      stream: Streams.jobs.name,
      filterSubject: FetchSourceJob.subject,
      payload: FetchSourceJob,
      concurrency: 4,
      maxAttempts: 3,
      backoffMs: [2000, 10_000],
      ackWaitMs: 120_000,
      handle: async (job, context) => {
        const slot = await this.dataSource.getRepository(UploadSlotEntity).findOneBy({ fileId: job.fileId });
        if (!slot || slot.status !== 'fetching' || !slot.sourceUrl) {
          return;
        }
        try {
          const size = await this.fetcher.fetchInto(slot.sourceUrl, slot.bucket, slot.objectKey);
          await context.transaction((manager) => this.markUploaded.execute(manager, slot.fileId, size).then(() => undefined));
        } catch (error) {
          if (error instanceof SourceFetchError && error.permanent) {
            this.logger.warn({ fileId: slot.fileId, orderId: slot.orderId, reason: error.message }, 'source URL refused');
            await context.transaction((manager) => this.fail(manager, slot, error.message));
            return;
          }
          throw error;
        }
      },
      onExhausted: async (job, _eventId, error) => {
        await this.dataSource.transaction(async (manager) => {
          const slot = await manager.findOneBy(UploadSlotEntity, { fileId: job.fileId });
          if (slot?.status === 'fetching') {
            await this.fail(manager, slot, error instanceof Error ? error.message : 'fetch failed');
          }
        });
      },
    });
  }

  private async fail(manager: EntityManager, slot: UploadSlotEntity, reason: string): Promise<void> {
    await manager.update(UploadSlotEntity, slot.fileId, { status: 'failed', failureReason: reason.slice(0, 500) });
    const event: FileFailedEvent = { orderId: slot.orderId, fileId: slot.fileId, code: OrderFailureCode.WATERMARK_SOURCE_URL_FAILED };
    await this.outbox.add(manager, EventSubjects.fileFailed, event);
  }
}
