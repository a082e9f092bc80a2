import { Clock } from '@cp/clock';
import { resultsCarryOptOut, StoredObjectRef, V2_DOWNLOAD_URL_SECONDS } from '@cp/contracts';
import { ObjectStorage, resultUrlThroughGateway } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { ObjectUrls } from '../order-types/order-type-definition';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';

const keyOf = (ref: StoredObjectRef): string => `${ref.bucket}/${ref.key}`;

/** The URLs clients get for an order's stored objects: the images its views link to, and its result files. */
@Injectable()
export class ObjectUrlsService {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  /**
   * Presigns, for one read, the objects an order's views link to: 1 hour (spec 2.7), and nothing once the
   * order expired (retention deletes its objects). A ref that was not presigned here reads as null.
   *
   * Nothing either for a failed order, from its failure on: the retention service deletes its objects
   * `RETENTION_FAILED_ORDER_GRACE_HOURS` after the failure (its inputs at once when it failed before all its files
   * were in), and a link handed out before that would outlive them (it is valid for an hour). So the v2 detail's
   * `thumbnailImageUrl` (and any image link of a type's view) of a failed order is `null`, never a dead link.
   */
  async for(order: Order, refs: readonly StoredObjectRef[]): Promise<ObjectUrls> {
    if (refs.length === 0 || order.state.status === 'failed' || order.isExpired(this.clock.now())) {
      return { of: () => null };
    }
    const urls = new Map<string, string>();
    for (const ref of refs) {
      if (!urls.has(keyOf(ref))) {
        urls.set(keyOf(ref), await this.storage.presignGet(ref.bucket, ref.key, V2_DOWNLOAD_URL_SECONDS));
      }
    }
    return { of: (ref) => (ref ? urls.get(keyOf(ref)) ?? null : null) };
  }

  /**
   * A result file's download URL: presigned, or for types whose results carry the AI-training opt-out headers
   * (anti-AI) the same presigned read relayed by the gateway's results route.
   */
  async download(order: Order, target: StoredObjectRef, seconds: number): Promise<string> {
    const presigned = await this.storage.presignGet(target.bucket, target.key, seconds, target.fileName);
    return resultsCarryOptOut(order.state.type) ? resultUrlThroughGateway(presigned, this.config.publicBaseUrl) : presigned;
  }
}
