// The links an order's views get: presigned while the order's objects are kept, none once retention deletes them
// (expired, and failed: a failed order's objects go a grace period after the failure, its inputs sometimes at once).
import { ManualClock } from '@cp/clock';
import { OrderStatus, StoredObjectRef } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Order } from '../domain/order';
import { OrdersConfig } from '../orders.config';
import { ObjectUrlsService } from './object-urls.service';

const at = new Date('2026-10-01T00:00:00.000Z');
const input: StoredObjectRef = { bucket: 'in', key: '3/9/inputs/5/photo.png', fileName: 'photo.png' };

function order(status: OrderStatus, expiresAt = new Date(at.getTime() + 30 * 24 * 3600_000)): Order {
  return new Order(
    {
      id: '9',
      accountId: '3',
      mode: 'live',
      type: 'watermarkEmbed',
      apiVersion: 'v2',
      status,
      processingDelayed: false,
      failureCode: status === 'failed' ? 'WATERMARK_FILE_INVALID' : null,
      creditsCharged: 1,
      packageKey: null,
      options: null,
      typeResult: null,
      expiresAt,
      completedAt: status === 'complete' ? at : null,
      failedAt: status === 'failed' ? at : null,
      createdAt: at,
      updatedAt: at,
    },
    [{ id: '5', position: 0, role: 'input', fileName: 'photo.png', sourceUrl: null, mediaKind: 'image', status: 'uploaded', size: '10' }],
    [],
  );
}

describe('ObjectUrlsService.for', () => {
  const presigned: string[] = [];
  const storage = {
    presignGet: (bucket: string, key: string) => {
      presigned.push(`${bucket}/${key}`);
      return Promise.resolve(`https://s3.example/${bucket}/${key}?X-Amz-Expires=3600`);
    },
  } as unknown as ObjectStorage;
  const urls = new ObjectUrlsService(storage, new ManualClock(new Date(at.getTime() + 3600_000)), { publicBaseUrl: 'https://api.example' } as OrdersConfig);

  beforeEach(() => {
    presigned.length = 0;
  });

  it('presigns the linked objects of an order that keeps them', async () => {
    for (const status of ['pending', 'inProgress', 'complete'] as const) {
      expect((await urls.for(order(status), [input])).of(input)).toBe('https://s3.example/in/3/9/inputs/5/photo.png?X-Amz-Expires=3600');
    }
    expect(presigned).toHaveLength(3);
  });

  it('links to nothing of a failed order (its objects are deleted after a grace period, a link would outlive them), nor of an expired one', async () => {
    expect((await urls.for(order('failed'), [input])).of(input)).toBeNull();
    expect((await urls.for(order('complete', at), [input])).of(input)).toBeNull();
    expect((await urls.for(order('expired', at), [input])).of(input)).toBeNull();
    expect(presigned).toEqual([]);
  });
});
