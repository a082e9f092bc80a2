import { ObjectKeys } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';

/** How often keys that storage did not delete are asked for again within one purge. */
const DELETE_ATTEMPTS = 3;

export interface PurgeResult {
  /** Objects storage confirmed deleted. */
  deleted: number;
  /** Keys still there after every attempt (bucket/key): the order's files are not gone yet. */
  failed: string[];
}

/** Every object of an order (inputs, outputs, ZIP, reports) lives under one prefix in the three buckets. */
@Injectable()
export class OrderObjects {
  constructor(private readonly storage: ObjectStorage) {}

  /**
   * Deletes everything under the order's prefix, asking again for the keys the bulk delete reports as not
   * deleted. Idempotent: the next purge lists the prefix again and finds exactly what is left.
   */
  purge(accountId: string, orderId: string): Promise<PurgeResult> {
    return this.purgePrefix(ObjectKeys.orderPrefix(accountId, orderId));
  }

  /** Every object of the account, of every order (an account's erasure); as `purge`, idempotent. */
  purgeAccount(accountId: string): Promise<PurgeResult> {
    return this.purgePrefix(ObjectKeys.accountPrefix(accountId));
  }

  /** Every object under `prefix` (an erased account's or order's, looked at again); as `purge`, idempotent. */
  async purgePrefix(prefix: string): Promise<PurgeResult> {
    const { inputs, outputs, reports } = this.storage.buckets;
    let deleted = 0;
    const failed: string[] = [];
    for (const bucket of [inputs, outputs, reports]) {
      const keys = await this.storage.listKeys(bucket, prefix);
      let remaining = keys;
      for (let attempt = 0; attempt < DELETE_ATTEMPTS && remaining.length > 0; attempt += 1) {
        remaining = await this.storage.removeEach(bucket, remaining);
      }
      deleted += keys.length - remaining.length;
      failed.push(...remaining.map((key) => `${bucket}/${key}`));
    }
    return { deleted, failed };
  }
}
