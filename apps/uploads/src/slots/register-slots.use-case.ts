import { Clock } from '@cp/clock';
import { Jobs, RegisterSlotsCommand, sharedJob } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { InsertedUploadSlot, NewUploadSlot, UploadSlotsRepository } from './upload-slots.repository';

/**
 * Registers an order's upload slots, idempotent per file id: the slots not known yet are inserted, and each file
 * given by URL among them is queued for fetching in the same transaction, so a file is fetched once however often
 * its order's registration comes (the `uploads.register-slots` call after the order's commit, its retries and
 * replays, and the orders sweep that registers what such a call lost, in any order or at once).
 */
@Injectable()
export class RegisterSlotsUseCase {
  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly slots: UploadSlotsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Returns the slots inserted now (none when every file id was known, or when the order's upload window has
   * passed: a registration that comes that late is for an order that has failed and given its credits back, whose
   * URL files must not be fetched and whose slots nobody will fill).
   */
  async execute(tx: Transaction, command: RegisterSlotsCommand): Promise<InsertedUploadSlot[]> {
    if (command.orderCreatedAt !== undefined && Date.parse(command.orderCreatedAt) + this.config.uploadWindowMs <= this.clock.nowMs()) {
      return [];
    }
    const inserted = await this.slots.insertNew(tx, this.slotsOf(command));
    // Each fetch held to its account's share (`SOURCE_FETCHES_PER_ACCOUNT`); its outcome frees it (`FetchSourceConsumer`).
    await this.slots.publish(
      tx,
      inserted
        .filter((slot) => slot.sourceUrl)
        .map((slot) => sharedJob(Jobs.uploadsFetch, { fileId: slot.fileId }, { accountId: command.accountId, order: command.orderId, limit: this.config.sourceFetch.perAccount })),
    );
    return inserted;
  }

  /** The rows the command asks for, in the inputs bucket: files given by URL carry their source. */
  slotsOf(command: RegisterSlotsCommand): NewUploadSlot[] {
    const bucket = this.config.storage.buckets.inputs;
    return command.files.map((file) => ({
      fileId: file.fileId,
      orderId: command.orderId,
      accountId: command.accountId,
      mode: command.mode,
      orderType: command.orderType ?? null,
      bucket,
      objectKey: file.objectKey,
      sourceUrl: file.sourceUrl ?? null,
    }));
  }
}
