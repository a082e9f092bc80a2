import { Clock } from '@cp/clock';
import {
  DomainException,
  ErrorCode,
  KnownSlotsQuery,
  KnownSlotsView,
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
import { RegisterSlotsUseCase } from './register-slots.use-case';
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
    private readonly registration: RegisterSlotsUseCase,
    private readonly clock: Clock,
  ) {}

  /**
   * Idempotent per file id (`RegisterSlotsUseCase`: the call after the order's commit, a replay of its creation and
   * the orders sweep of registrations lost register each file once); files given by URL are queued for fetching
   * (once) instead of getting a URL.
   */
  async register(command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    const fileIds = command.files.map((file) => file.fileId);
    // A first registration knows its slots; a replay reads them, with whatever happened to them since.
    const known = async (tx: Transaction | null, inserted: InsertedUploadSlot[]) =>
      inserted.length === fileIds.length ? inserted : this.slots.findByFileIds(tx, fileIds);
    if (command.files.every((file) => !file.sourceUrl)) {
      // No fetch job to publish with them: the insert alone, without a transaction around it (two round trips fewer per order).
      return { urls: await this.urlsOf(await known(null, await this.slots.insertNew(null, this.registration.slotsOf(command)))) };
    }
    const slots = await this.transactions.run(async (tx) => known(tx, await this.registration.execute(tx, command)));
    return { urls: await this.urlsOf(slots) };
  }

  /** Which of these files have a slot: the orders sweep asks it of new orders' first files to find registrations lost. */
  async knownSlots(query: KnownSlotsQuery): Promise<KnownSlotsView> {
    return { fileIds: query.fileIds.length === 0 ? [] : await this.slots.knownFileIds(query.fileIds) };
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
