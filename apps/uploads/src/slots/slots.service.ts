import { Clock } from '@cp/clock';
import {
  DomainException,
  ErrorCode,
  FetchSourceJob,
  JobSubjects,
  RecordTestUploadCommand,
  RegisterSlotsCommand,
  TestUploadView,
  UploadUrlsView,
  UploadUrlsWithValidityQuery,
} from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { verifyUploadToken } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { MarkUploadedUseCase } from './mark-uploaded.use-case';
import { UploadSlotEntity } from './upload-slot.entity';
import { UploadUrlsService } from './upload-urls.service';

@Injectable()
export class SlotsService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly urls: UploadUrlsService,
    private readonly markUploaded: MarkUploadedUseCase,
    private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  /** Idempotent per file id; files given by URL are queued for fetching instead of getting a URL. */
  async register(command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    const bucket = this.config.storage.buckets.inputs;
    const slots = await this.dataSource.transaction(async (manager) => {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(UploadSlotEntity)
        .values(
          command.files.map((file) => ({
            fileId: file.fileId,
            orderId: command.orderId,
            accountId: command.accountId,
            mode: command.mode,
            bucket,
            objectKey: file.objectKey,
            sourceUrl: file.sourceUrl ?? null,
            status: file.sourceUrl ? ('fetching' as const) : ('awaiting' as const),
          })),
        )
        .orIgnore()
        .returning(['fileId', 'sourceUrl'])
        .execute();
      for (const row of inserted.raw as Array<{ file_id: string; source_url: string | null }>) {
        if (row.source_url) {
          const job: FetchSourceJob = { fileId: String(row.file_id) };
          await this.outbox.add(manager, JobSubjects.uploadsFetch, job);
        }
      }
      return manager.findBy(UploadSlotEntity, { fileId: In(command.files.map((file) => file.fileId)) });
    });
    return { urls: await this.urlsOf(slots) };
  }

  async uploadUrls(query: UploadUrlsWithValidityQuery): Promise<UploadUrlsView> {
    const slots = await this.dataSource.getRepository(UploadSlotEntity).findBy({ orderId: query.orderId, fileId: In(query.fileIds) });
    return { urls: await this.urlsOf(slots, query.validitySeconds) };
  }

  /** The gateway's test sink received a body: the token names the file; nothing is stored. */
  async recordTestUpload(command: RecordTestUploadCommand): Promise<TestUploadView> {
    const claims = verifyUploadToken(command.token, this.config.testUploadSecret, this.clock.nowMs());
    if (!claims) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'invalid or expired test upload token');
    }
    await this.dataSource.transaction(async (manager) => {
      const slot = await manager.findOneBy(UploadSlotEntity, { fileId: claims.fileId, orderId: claims.orderId, mode: 'test' });
      if (!slot) {
        throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'no such test upload slot');
      }
      await this.markUploaded.execute(manager, slot.fileId, command.size);
    });
    return { fileId: claims.fileId, size: command.size };
  }

  private async urlsOf(slots: UploadSlotEntity[], validitySeconds?: number): Promise<Record<string, string>> {
    const waiting = slots.filter((slot) => slot.status === 'awaiting');
    const entries = await Promise.all(waiting.map(async (slot) => [slot.fileId, await this.urls.urlFor(slot, validitySeconds)] as const));
    return Object.fromEntries(entries);
  }
}
