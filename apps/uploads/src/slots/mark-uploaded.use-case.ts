import { Events, message } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { contextFromTraceparent, inSpan, orderAttributes } from '@cp/tracing';
import { Injectable } from '@nestjs/common';
import { UploadSlotsRepository } from './upload-slots.repository';

/** A slot's file has arrived (storage notification, reconciliation, URL fetch or test sink): tell orders, once. */
@Injectable()
export class MarkUploadedUseCase {
  constructor(private readonly slots: UploadSlotsRepository) {}

  /** Returns false when the slot was not waiting (already uploaded, failed, or unknown). */
  async execute(tx: Transaction, fileId: string, size: number): Promise<boolean> {
    const slot = await this.slots.markUploaded(tx, fileId, size);
    if (slot === null) {
      return false;
    }
    const { orderId } = slot;
    // The notification that brought the upload has no trace; the order's continues from its creation (issue 33).
    await inSpan('file uploaded', { parent: contextFromTraceparent(slot.traceparent), attributes: { ...orderAttributes({ orderId }), 'cp.file.id': fileId } }, () =>
      this.slots.publish(tx, [message(Events.fileUploaded, { orderId, fileId, size })]),
    );
    return true;
  }
}
