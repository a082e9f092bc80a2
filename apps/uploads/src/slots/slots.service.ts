import { Clock } from '@cp/clock';
import {
  DomainException,
  ErrorCode,
  message,
  Jobs,
  RecordTestUploadCommand,
  RegisterSlotsCommand,
  TestUploadView,
  UploadUrlsView,
  UploadUrlsWithValidityQuery,
} from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { verifyUploadToken } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { ReceiveUploadUseCase } from './receive-upload.use-case';
import { UploadSlotEntity } from './upload-slot.entity';
import { InsertedUploadSlot, UploadSlotsRepository } from './upload-slots.repository';
import { UploadUrlsService } from './upload-urls.service';

@Injectable()
export class SlotsService {
  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    private readonly urls: UploadUrlsService,
    private readonly receive: ReceiveUploadUseCase,
    private readonly clock: Clock,
  ) {}

  /** Idempotent per file id; files given by URL are queued for fetching (once) instead of getting a URL. */
  async register(command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    const bucket = this.config.storage.buckets.inputs;
    const fileIds = command.files.map((file) => file.fileId);
    const newSlots = command.files.map((file) => ({
      fileId: file.fileId,
      orderId: command.orderId,
      accountId: command.accountId,
      mode: command.mode,
      orderType: command.orderType ?? null,
      bucket,
      objectKey: file.objectKey,
      sourceUrl: file.sourceUrl ?? null,
    }));
    // A first registration knows its slots; a replay reads them, with whatever happened to them since.
    const known = async (tx: Transaction | null, inserted: InsertedUploadSlot[]) =>
      inserted.length === fileIds.length ? inserted : this.slots.findByFileIds(tx, fileIds);
    if (newSlots.every((slot) => slot.sourceUrl === null)) {
      // No fetch job to publish with them: the insert alone, without a transaction around it (two round trips fewer per order).
      return { urls: await this.urlsOf(await known(null, await this.slots.insertNew(null, newSlots))) };
    }
    const slots = await this.transactions.run(async (tx) => {
      const inserted = await this.slots.insertNew(tx, newSlots);
      await this.slots.publish(
        tx,
        inserted.filter((slot) => slot.sourceUrl).map((slot) => message(Jobs.uploadsFetch, { fileId: slot.fileId })),
      );
      return known(tx, inserted);
    });
    return { urls: await this.urlsOf(slots) };
  }

  async uploadUrls(query: UploadUrlsWithValidityQuery): Promise<UploadUrlsView> {
    const slots = await this.slots.findOfOrder(query.orderId, query.fileIds);
    return { urls: await this.urlsOf(slots, query.validitySeconds) };
  }

  /**
   * The gateway's test sink received a body: the token names the file; nothing is stored. Held to the input limit
   * of the order's type like a live upload (over it the order fails with the same code). A replay answers what the
   * first upload recorded, so every answer for one token is the same.
   */
  async recordTestUpload(command: RecordTestUploadCommand): Promise<TestUploadView> {
    const claims = verifyUploadToken(command.token, this.config.testUploadSecret, this.clock.nowMs());
    if (!claims) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'invalid or expired test upload token');
    }
    const received = await this.transactions.run(async (tx) => {
      const slot = await this.slots.findOne(tx, { fileId: claims.fileId, orderId: claims.orderId, mode: 'test' });
      if (!slot) {
        throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, 'no such test upload slot');
      }
      return this.receive.execute(tx, slot.fileId, command.size);
    });
    return { fileId: claims.fileId, size: received.recordedSize ?? command.size };
  }

  private async urlsOf(slots: Array<Pick<UploadSlotEntity, 'status' | 'mode' | 'bucket' | 'objectKey' | 'orderId' | 'fileId'>>, validitySeconds?: number): Promise<Record<string, string>> {
    const waiting = slots.filter((slot) => slot.status === 'awaiting');
    const entries = await Promise.all(waiting.map(async (slot) => [slot.fileId, await this.urls.urlFor(slot, validitySeconds)] as const));
    return Object.fromEntries(entries);
  }
}
