import { Clock } from '@cp/clock';
import { StoredObjectRef, V2_DOWNLOAD_URL_SECONDS } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { ObjectUrls } from '../order-types/order-type-definition';

const keyOf = (ref: StoredObjectRef): string => `${ref.bucket}/${ref.key}`;

/**
 * Presigns, for one read, the objects an order's views link to: 1 hour (spec 2.7), and nothing once the
 * order expired (retention deletes its objects). A ref that was not presigned here reads as null.
 */
@Injectable()
export class ObjectUrlsService {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  async for(order: Order, refs: readonly StoredObjectRef[]): Promise<ObjectUrls> {
    if (refs.length === 0 || order.isExpired(this.clock.now())) {
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
}
