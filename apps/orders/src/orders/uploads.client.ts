import { Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { slotRegistration } from './slot-registration';

/** The uploads service owns upload slots and upload URLs; orders asks it over request/reply (never inside a transaction). */
@Injectable()
export class UploadsClient {
  constructor(private readonly rpc: RpcClient) {}

  /** Which of these files the uploads service has a slot for. */
  async knownSlots(fileIds: string[]): Promise<string[]> {
    return (await this.rpc.request(Rpcs.uploadsKnownSlots, { fileIds })).fileIds;
  }

  /**
   * Registers the slots of every file of an order still waiting for its files (pending, or started at once)
   * (`slotRegistration`; idempotent per file id: a replay, a retry after a failed call, or the sweep of
   * `RegisterMissingSlotsUseCase` registers nothing twice, files given by URL are queued for fetching once) and
   * returns the upload URLs of the files still waiting. Nothing for orders that no longer accept uploads.
   */
  async registerSlots(order: Order, now: Date): Promise<Record<string, string>> {
    const registration = slotRegistration(order, now);
    if (!registration) {
      return {};
    }
    return (await this.rpc.request(Rpcs.uploadsRegisterSlots, registration)).urls;
  }

  /**
   * Fresh upload URLs, only while the order is pending and not expired (spec 2.2). `validitySeconds`:
   * the uploads service's default (900 s) unless given (v2 refresh-urls: 1 hour).
   */
  async urlsFor(order: Order, now: Date, validitySeconds?: number): Promise<Record<string, string>> {
    const waiting = order.filesAwaitingUpload().map((file) => file.id);
    if (!order.acceptsUploads(now) || waiting.length === 0) {
      return {};
    }
    const query = { orderId: order.id, fileIds: waiting, ...(validitySeconds ? { validitySeconds } : {}) };
    return (await this.rpc.request(Rpcs.uploadsUploadUrls, query)).urls;
  }
}
