import { RegisterSlotsCommand, UploadRpcPatterns, UploadUrlsView, UploadUrlsWithValidityQuery } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { OrderAggregate } from './orders.repository';

/** The uploads service owns upload slots and upload URLs; orders asks it over request/reply. */
@Injectable()
export class UploadsClient {
  constructor(private readonly rpc: RpcClient) {}

  async registerSlots(command: RegisterSlotsCommand): Promise<UploadUrlsView> {
    return this.rpc.request<UploadUrlsView>(UploadRpcPatterns.registerSlots, command);
  }

  /**
   * Fresh upload URLs, only while the order is pending and not expired (spec 2.2). `validitySeconds`:
   * the uploads service's default (900 s) unless given (v2 refresh-urls: 1 hour).
   */
  async urlsFor(aggregate: OrderAggregate, now: Date, validitySeconds?: number): Promise<Record<string, string>> {
    const waiting = aggregate.files.filter((file) => file.status === 'awaiting_upload' && !file.sourceUrl).map((file) => file.id);
    if (aggregate.order.status !== 'pending' || aggregate.order.expiresAt <= now || waiting.length === 0) {
      return {};
    }
    const query: UploadUrlsWithValidityQuery = { orderId: aggregate.order.id, fileIds: waiting, ...(validitySeconds ? { validitySeconds } : {}) };
    return (await this.rpc.request<UploadUrlsView>(UploadRpcPatterns.uploadUrls, query)).urls;
  }
}
