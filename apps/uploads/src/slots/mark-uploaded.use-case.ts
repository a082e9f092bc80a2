import { Events, message } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { UploadSlotsRepository } from './upload-slots.repository';

/** A slot's file has arrived (storage notification, reconciliation, URL fetch or test sink): tell orders, once. */
@Injectable()
export class MarkUploadedUseCase {
  constructor(private readonly slots: UploadSlotsRepository) {}

  /** Returns false when the slot was not waiting (already uploaded, failed, or unknown). */
  async execute(tx: Transaction, fileId: string, size: number): Promise<boolean> {
    const orderId = await this.slots.markUploaded(tx, fileId, size);
    if (orderId === null) {
      return false;
    }
    await this.slots.publish(tx, [message(Events.fileUploaded, { orderId, fileId, size })]);
    return true;
  }
}
