import { ObjectKeys } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { testStorageConfig } from '@cp/testing';
import { OrderObjects } from './order-objects.service';

/** Storage in memory whose bulk delete reports some keys as not deleted, a given number of times (S3's per-key errors). */
class FakeStorage extends ObjectStorage {
  readonly objects = new Map<string, Set<string>>();
  /** key → how many more deletes of it fail. */
  readonly failures = new Map<string, number>();

  constructor() {
    super(testStorageConfig('http://127.0.0.1:1'));
  }

  add(bucket: string, key: string): void {
    const keys = this.objects.get(bucket) ?? new Set<string>();
    keys.add(key);
    this.objects.set(bucket, keys);
  }

  override listKeys(bucket: string, prefix: string): Promise<string[]> {
    return Promise.resolve([...(this.objects.get(bucket) ?? [])].filter((key) => key.startsWith(prefix)));
  }

  override removeEach(bucket: string, keys: string[]): Promise<string[]> {
    const failed: string[] = [];
    for (const key of keys) {
      const left = this.failures.get(key) ?? 0;
      if (left > 0) {
        this.failures.set(key, left - 1);
        failed.push(key);
      } else {
        this.objects.get(bucket)?.delete(key);
      }
    }
    return Promise.resolve(failed);
  }
}

describe('OrderObjects.purge', () => {
  const prefix = ObjectKeys.orderPrefix('5', '9');
  let storage: FakeStorage;

  beforeEach(() => {
    storage = new FakeStorage();
    storage.add(storage.buckets.inputs, `${prefix}inputs/1/a.png`);
    storage.add(storage.buckets.outputs, `${prefix}outputs/1-1/a.png`);
    storage.add(storage.buckets.outputs, `${prefix}outputs/1-2/b.png`);
  });

  it('asks again for a key the bulk delete did not delete', async () => {
    storage.failures.set(`${prefix}outputs/1-2/b.png`, 2);
    expect(await new OrderObjects(storage).purge('5', '9')).toEqual({ deleted: 3, failed: [] });
    expect(await storage.listKeys(storage.buckets.outputs, prefix)).toEqual([]);
  });

  it('reports a key that stays undeleted and does not count it as deleted', async () => {
    storage.failures.set(`${prefix}outputs/1-2/b.png`, 100);
    expect(await new OrderObjects(storage).purge('5', '9')).toEqual({ deleted: 2, failed: [`${storage.buckets.outputs}/${prefix}outputs/1-2/b.png`] });
    expect(await storage.listKeys(storage.buckets.outputs, prefix)).toEqual([`${prefix}outputs/1-2/b.png`]);
  });
});
