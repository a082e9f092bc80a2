import { Transaction } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';

/** What `execute` did to the slots of a failed order. */
export interface ClosedOrderSlots {
  /** Slots still waiting for their file (upload or URL fetch), closed now. */
  closedWaiting: number;
  /** Uploaded or fetched slots closed now, their objects to be deleted (`deleteInputs`). */
  closedUploaded: number;
}

export const CLOSED_WAITING_REASON = 'closed: the order failed before this file arrived';
export const CLOSED_UPLOADED_REASON = 'input deleted: the order failed before all its files were in';

/**
 * An order failed (`evt.orders.order.failed`): its slots must stop taking files, and the inputs of an order that
 * never started processing are deleted at once instead of being kept for the whole retention (docs/api-decisions.md,
 * "The inputs of a failed order").
 *
 * The order never started when one of its slots is not `uploaded` (waiting, or failed: refused or not fetched).
 * Verified in the orders service, for every order type: the only path that sends an order's jobs, and so the only
 * thing that reads its inputs, is `OrderProcessingService.start` (apps/orders/src/processing/order-processing.service.ts),
 * called by `FileUploadedUseCase` when `Order.allFilesUploaded()` (and the type `startsOnLastFile`: embed v2/v3,
 * extract v2/v3 and anti-AI always, AI detection once confirmed) and by `ConfirmAiDetectionOrderUseCase` only when
 * `order.allFilesUploaded()`. The deprecated anti-AI with-urls order is `inProgress` from its creation
 * (`Order.startBeforeFiles`), but only its status: its jobs go out through the same `start` once every file is
 * fetched (`Order.startProcessing`, `startedBeforeFiles`), so it satisfies the invariant too and is not excluded.
 * Orders count a file in only from this service's `file.uploaded`, published in the transaction that marked its
 * slot `uploaded`, so a slot not `uploaded` here is a file orders never had: no job of the order ever ran.
 *
 * An order whose slots were all uploaded when its failure is handled keeps its inputs here: a job of a sibling
 * output may still be reading one (the retention service deletes them, with any stored output, a grace period after
 * the failure, `RETENTION_FAILED_ORDER_GRACE_HOURS`, longer than any job can still run). Its slots are all uploaded
 * already, so there is nothing to close either (a second PUT to a still-valid URL replaces the same object and takes
 * no more room).
 *
 * Idempotent: closing skips failed slots, and `deleteInputs` deletes the objects of the order's failed slots, which
 * a redelivered event (or an object that arrives later, `ReceiveUploadUseCase`) may delete again harmlessly.
 */
@Injectable()
export class CloseFailedOrderSlotsUseCase {
  constructor(
    private readonly slots: UploadSlotsRepository,
    private readonly storage: ObjectStorage,
  ) {}

  /**
   * Closes the order's slots, locked, in the caller's transaction: the waiting ones always, the uploaded ones too
   * when the order never started, so a second PUT to their still-valid URLs cannot store the deleted inputs again.
   */
  async execute(tx: Transaction, orderId: string): Promise<ClosedOrderSlots> {
    // Fetches of the failed order still held back by its account's share are never sent; a sent one frees its place.
    await this.slots.releaseFetches(tx, orderId);
    const slots = await this.slots.lockOfOrder(tx, orderId);
    const neverStarted = slots.some((slot) => slot.status !== 'uploaded');
    if (!neverStarted) {
      return { closedWaiting: 0, closedUploaded: 0 };
    }
    const waiting = slots.filter((slot) => slot.status === 'awaiting' || slot.status === 'fetching').map((slot) => slot.fileId);
    const uploaded = slots.filter((slot) => slot.status === 'uploaded').map((slot) => slot.fileId);
    return {
      closedWaiting: await this.slots.close(tx, waiting, CLOSED_WAITING_REASON),
      closedUploaded: await this.slots.close(tx, uploaded, CLOSED_UPLOADED_REASON),
    };
  }

  /**
   * Deletes the objects of the order's failed slots; call it after `execute`'s transaction committed (the slots
   * are closed first, so an object arriving meanwhile is deleted on arrival) and on every delivery of the event,
   * so a redelivery finishes what a failed delete left. Throws when storage kept one (the event is redelivered;
   * retention deletes it at the latest). Does nothing for an order that keeps its inputs: none of its slots failed.
   */
  async deleteInputs(orderId: string): Promise<number> {
    const objects = await this.slots.closedObjectsOfOrder(orderId);
    const byBucket = new Map<string, string[]>();
    for (const object of objects) {
      const keys = byBucket.get(object.bucket) ?? [];
      keys.push(object.key);
      byBucket.set(object.bucket, keys);
    }
    const kept: string[] = [];
    for (const [bucket, keys] of byBucket) {
      kept.push(...(await this.storage.removeEach(bucket, keys)));
    }
    if (kept.length > 0) {
      throw new Error(`storage did not delete ${kept.length} input(s) of failed order ${orderId}`);
    }
    return objects.length;
  }
}
