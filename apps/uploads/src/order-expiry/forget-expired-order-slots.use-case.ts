import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';

/**
 * An expired order's upload slots are deleted. They hold the client's file names (in the object keys too) and the
 * `originalFileUrl`s it gave (which may carry its own storage's signature): the order record keeps what the API
 * still shows after expiry, so this copy, needed only while files come in, has no purpose left. Nothing reads the
 * slots of an expired order: its upload URLs are no longer issued, the missing-slot sweep looks at pending orders
 * only, a fetch job still queued finds no slot and does nothing, and an object that lands late is deleted by the
 * retention service's second look at the order's prefix.
 */
@Injectable()
export class ForgetExpiredOrderSlotsUseCase {
  constructor(private readonly slots: UploadSlotsRepository) {}

  execute(tx: Transaction, orderId: string): Promise<number> {
    return this.slots.deleteOfOrder(tx, orderId);
  }
}
