import { ObjectKeys } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';

/** Every object of an order (inputs, outputs, ZIP, reports) lives under one prefix in the three buckets. */
@Injectable()
export class OrderObjects {
  constructor(private readonly storage: ObjectStorage) {}

  /** Deletes everything under the order's prefix; returns how many objects were there. Idempotent. */
  async purge(accountId: string, orderId: string): Promise<number> {
    const prefix = ObjectKeys.orderPrefix(accountId, orderId);
    const { inputs, outputs, reports } = this.storage.buckets;
    let deleted = 0;
    for (const bucket of [inputs, outputs, reports]) {
      const keys = await this.storage.listKeys(bucket, prefix);
      await this.storage.remove(bucket, keys);
      deleted += keys.length;
    }
    return deleted;
  }
}
