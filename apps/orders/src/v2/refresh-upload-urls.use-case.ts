import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, V2_REFRESHED_UPLOAD_URL_SECONDS, V2OrderQuery, V2RefreshUrlsView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderAccessService } from '../orders/order-access.service';
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
    private readonly access: OrderAccessService,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async execute(query: V2OrderQuery): Promise<V2RefreshUrlsView> {
    const order = await this.access.owned(query.caller, query.orderId, ErrorCode.WEBHOOK_NOT_FOUND);
    const now = this.clock.now();
    if (!order.acceptsUploads(now)) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `order ${query.orderId} is ${order.status}`);
    }
    const urls = await this.uploads.urlsFor(order, now, V2_REFRESHED_UPLOAD_URL_SECONDS);
    return {
      files: order.files
        .filter((file) => urls[file.id])
        .map((file) => ({ fileId: file.id, fileName: file.fileName, uploadUrl: urls[file.id], fileKey: v2FileKey(order.state, file) })),
    };
  }
}
