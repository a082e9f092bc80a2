import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, V2_REFRESHED_UPLOAD_URL_SECONDS, V2OrderQuery, V2RefreshUrlsView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';
import { UploadsClient } from '../orders/uploads.client';
import { v2FileKey } from './v2-view.mapper';

/**
 * Spec 4.12: new upload URLs, valid 1 hour, for the files of a `pending` order still waiting for their
 * upload. An unknown order answers WEBHOOK_NOT_FOUND (the spec's code for this endpoint); an order that
 * is no longer pending (or whose retention ended) is VALIDATION_FAILED.
 */
@Injectable()
export class RefreshUploadUrlsUseCase {
  constructor(
    private readonly repository: OrdersRepository,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async execute(query: V2OrderQuery): Promise<V2RefreshUrlsView> {
    const aggregate = await this.repository.findOwned(query.orderId, query.caller.accountId, query.caller.mode);
    if (!aggregate) {
      throw new DomainException(ErrorCode.WEBHOOK_NOT_FOUND, `order ${query.orderId} not found for the caller`);
    }
    const now = this.clock.now();
    if (aggregate.order.status !== 'pending' || aggregate.order.expiresAt <= now) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `order ${query.orderId} is ${aggregate.order.status}`);
    }
    const urls = await this.uploads.urlsFor(aggregate, now, V2_REFRESHED_UPLOAD_URL_SECONDS);
    return {
      files: aggregate.files
        .filter((file) => urls[file.id])
        .map((file) => ({ fileId: file.id, fileName: file.fileName, uploadUrl: urls[file.id], fileKey: v2FileKey(aggregate.order, file) })),
    };
  }
}
