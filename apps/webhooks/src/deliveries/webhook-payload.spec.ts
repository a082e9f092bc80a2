import { OrderCompletedEvent, OrderFailedEvent } from '@cp/contracts';
import { completedEvent, failedEvent, payloadEventId, renderPayload } from './webhook-payload';

const base = {
  orderId: '77',
  accountId: '5',
  mode: 'live' as const,
  apiVersion: 'v3' as const,
  orderName: 'order-77',
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: '2026-03-01T00:05:00.000Z',
};
const sourceId = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

describe('webhook payload', () => {
  it('embed completed: common fields, fileCount, downloadUrl added at render time', () => {
    const event: OrderCompletedEvent = {
      ...base,
      orderType: 'watermarkEmbed',
      completedAt: '2026-03-01T00:05:00.000Z',
      fileCount: 2,
      download: { bucket: 'out', key: '5/77/result.zip', fileName: '77-watermarked.zip' },
    };
    const stored = completedEvent(sourceId, event);
    expect(stored).toMatchObject({ eventId: sourceId, eventType: 'order.watermarkEmbed.completed', occurredAt: event.completedAt });
    expect(stored.download).toEqual(event.download);
    expect(stored.links).toBeNull();
    const body = JSON.parse(renderPayload(stored, { downloadUrl: 'https://s3/x' })) as { data: Record<string, unknown> };
    expect(body).toEqual({
      eventId: sourceId,
      eventType: 'order.watermarkEmbed.completed',
      occurredAt: event.completedAt,
      data: {
        orderId: '77',
        orderName: 'order-77',
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
        completedAt: event.completedAt,
        status: 'complete',
        testMode: false,
        fileCount: 2,
        downloadUrl: 'https://s3/x',
      },
    });
  });

  it("an order type's own fields and links: the links are kept to be presigned at each attempt", () => {
    const heatmap = { bucket: 'out', key: '5/77/ai-detection/1/heatmap.webp', fileName: 'heatmap.webp' };
    const stored = completedEvent(sourceId, {
      ...base,
      orderType: 'aiDetection',
      completedAt: base.updatedAt,
      fileCount: 1,
      webhookData: { fileCount: 1, probability: 0.9, heatmapUrl: null, overlayUrl: null },
      links: [{ field: 'heatmapUrl', object: heatmap }],
    });
    expect(stored.links).toEqual([{ field: 'heatmapUrl', object: heatmap }]);
    const data = (JSON.parse(renderPayload(stored, { heatmapUrl: 'https://s3/h' })) as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({ probability: 0.9, heatmapUrl: 'https://s3/h', overlayUrl: null });
  });

  it('extract completed: watermarkInfo.text only when found', () => {
    const found = completedEvent(sourceId, {
      ...base,
      orderType: 'watermarkExtract',
      completedAt: base.updatedAt,
      fileCount: 2,
      extract: { statusCode: 'detected', watermarkFound: true, watermarkText: 'hello' },
    }).data;
    expect(found).toMatchObject({ statusCode: 'detected', watermarkFound: true, watermarkInfo: { text: 'hello' } });
    const missing = completedEvent(sourceId, {
      ...base,
      orderType: 'watermarkExtract',
      completedAt: base.updatedAt,
      fileCount: 2,
      extract: { statusCode: 'undetected', watermarkFound: false, watermarkText: 'leak' },
    }).data;
    expect(missing).toMatchObject({ statusCode: 'undetected', watermarkFound: false });
    expect(missing).not.toHaveProperty('watermarkInfo');
    expect(missing).not.toHaveProperty('downloadUrl');
  });

  it('failed: errorCode with its fixed message, test orders flagged', () => {
    const event: OrderFailedEvent = { ...base, mode: 'test', orderType: 'watermarkEmbed', failedAt: base.updatedAt, errorCode: 'ORDER_TIMEOUT' };
    const stored = failedEvent(sourceId, event);
    expect(stored.eventType).toBe('order.watermarkEmbed.failed');
    expect(stored.data).toMatchObject({ status: 'failed', failedAt: base.updatedAt, errorCode: 'ORDER_TIMEOUT', testMode: true });
    expect(typeof stored.data.errorMessage).toBe('string');
    expect(stored.data.errorMessage).not.toBe('');
  });

  it('eventId is the source UUID, or a stable UUID derived from another id', () => {
    expect(payloadEventId(sourceId.toUpperCase())).toBe(sourceId);
    const derived = payloadEventId('not-a-uuid');
    expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(payloadEventId('not-a-uuid')).toBe(derived);
  });
});
