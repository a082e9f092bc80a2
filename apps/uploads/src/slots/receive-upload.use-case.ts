import { Events, message, OrderFailureCode, orderTypeEntry } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { MarkUploadedUseCase } from './mark-uploaded.use-case';
import { UploadSlotEntity } from './upload-slot.entity';
import { UploadSlotsRepository } from './upload-slots.repository';

/** What became of an object that appeared in a slot's place. */
export interface ReceivedUpload {
  outcome: 'recorded' | 'refused' | 'notWaiting' | 'unknown';
  /** The size recorded for the slot (this upload's, or the first one's when the slot was no longer waiting). */
  recordedSize: number | null;
  /** The object to delete once the transaction committed: it was over the limit, or came for a failed slot. */
  discard: { bucket: string; key: string } | null;
}

/** The input limit of a slot's order type and the public code of a file over it. */
export function inputLimitOf(slot: Pick<UploadSlotEntity, 'orderType'>, limits: UploadsConfig['inputLimits']): { maxBytes: number; code: OrderFailureCode } {
  const entry = slot.orderType ? orderTypeEntry(slot.orderType) : null;
  if (!entry) {
    // A slot registered without its type: never refuse what any worker would read.
    return { maxBytes: Math.max(limits.watermark, limits.aiDetection), code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE };
  }
  return { maxBytes: limits[entry.inputLimit.worker], code: entry.inputLimit.tooLargeCode };
}

/**
 * An upload landed (storage notification, reconciliation, URL fetch, test sink). Within the input limit of its
 * order's type it is recorded (`MarkUploadedUseCase`). Over it, the file could never be processed: the slot fails
 * and orders hears `file.failed` with the code the worker would have used (the order fails, its credits come back),
 * and the object is to be deleted at once instead of waiting for retention. A later object for a failed slot (a
 * second PUT to a still-valid URL) is deleted too, so a refused slot cannot be filled again. The slot is locked,
 * so two notifications of one slot are decided one after the other, and `file.failed` is published once.
 */
@Injectable()
export class ReceiveUploadUseCase {
  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly slots: UploadSlotsRepository,
    private readonly markUploaded: MarkUploadedUseCase,
    private readonly storage: ObjectStorage,
  ) {}

  async execute(tx: Transaction, fileId: string, size: number): Promise<ReceivedUpload> {
    const slot = await this.slots.lock(tx, fileId);
    if (!slot) {
      return { outcome: 'unknown', recordedSize: null, discard: null };
    }
    // Test slots have no object: the sink streams the body and keeps nothing.
    const object = slot.mode === 'live' ? { bucket: slot.bucket, key: slot.objectKey } : null;
    const recorded = slot.size === null ? null : Number(slot.size);
    if (slot.status === 'failed') {
      return { outcome: 'notWaiting', recordedSize: recorded, discard: object };
    }
    if (slot.status === 'uploaded') {
      // Replacing an uploaded file is the documented second PUT: the order may be processing it, so it stays.
      return { outcome: 'notWaiting', recordedSize: recorded, discard: null };
    }
    const limit = inputLimitOf(slot, this.config.inputLimits);
    if (size > limit.maxBytes) {
      if (await this.slots.markRefused(tx, fileId, size, `upload of ${size} bytes is over the input limit of ${limit.maxBytes} bytes`)) {
        await this.slots.publish(tx, [message(Events.fileFailed, { orderId: slot.orderId, fileId, code: limit.code })]);
      }
      return { outcome: 'refused', recordedSize: size, discard: object };
    }
    await this.markUploaded.execute(tx, fileId, size);
    return { outcome: 'recorded', recordedSize: size, discard: null };
  }

  /** Deletes what `execute` refused; call it after the transaction committed (a failure is retried by the caller). */
  async discard(received: ReceivedUpload): Promise<void> {
    if (received.discard) {
      await this.storage.remove(received.discard.bucket, [received.discard.key]);
    }
  }
}
