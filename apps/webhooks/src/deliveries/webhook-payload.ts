import { OrderCompletedEvent, OrderFailedEvent, orderTypeEntry, publicOrderError, WebhookEventType } from '@cp/contracts';
import { createHash } from 'node:crypto';
import { DeliveryDownloadRef, DeliveryLink } from './webhook-delivery.entity';

/** Spec 6.2: the body sent to the receiver. */
export interface WebhookPayload {
  eventId: string;
  eventType: WebhookEventType;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** What a delivery stores: everything of the payload except the URLs presigned at each attempt. */
export interface StoredEvent {
  eventId: string;
  eventType: WebhookEventType;
  orderId: string;
  occurredAt: string;
  data: Record<string, unknown>;
  download: DeliveryDownloadRef | null;
  /** Further `data` fields presigned at each attempt (an AI detection heatmap, for example). */
  links: DeliveryLink[] | null;
}

/** An event of a test key's order (`data.testMode`): the only kind a test webhook receives (`webhookReceives`). */
export function isTestEvent(event: Pick<StoredEvent, 'data'>): boolean {
  return event.data.testMode === true;
}

/** Fixed guidance text per public failure code (spec 2.7: never raw processor output). */
export function errorMessageFor(code: string): string {
  return publicOrderError(code).errorMessage;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The source event id when it is a UUID (outbox ids are), else a stable UUID-shaped digest of it. */
export function payloadEventId(sourceEventId: string): string {
  if (UUID.test(sourceEventId)) {
    return sourceEventId.toLowerCase();
  }
  const hex = createHash('sha256').update(sourceEventId).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function completedEvent(sourceEventId: string, event: OrderCompletedEvent): StoredEvent {
  const data: Record<string, unknown> = {
    orderId: event.orderId,
    orderName: event.orderName,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    completedAt: event.completedAt,
    status: 'complete',
    testMode: event.mode === 'test',
  };
  let download: DeliveryDownloadRef | null = null;
  let links: DeliveryLink[] | null = null;
  const legacy = orderTypeEntry(event.orderType)?.legacyWebhookData ?? null;
  if (event.webhookData) {
    // The order type's own fields, declared by its folder in the orders service (spec 6.2).
    Object.assign(data, event.webhookData);
    download = storedDownload(event);
    links = event.links?.length
      ? event.links.map(({ field, object }) => ({ field, object: { bucket: object.bucket, key: object.key, fileName: object.fileName } }))
      : null;
  } else if (legacy === 'download') {
    // Events written before order types declared their webhook fields (the catalog says which fields they had).
    data.fileCount = event.fileCount;
    download = storedDownload(event);
  } else if (legacy === 'extractResult') {
    const found = event.extract?.watermarkFound ?? false;
    data.statusCode = event.extract?.statusCode ?? 'undetected';
    data.watermarkFound = found;
    // The text is only ours to tell when found and embedded by this account (the event leaves it null otherwise).
    if (found && typeof event.extract?.watermarkText === 'string') {
      data.watermarkInfo = { text: event.extract.watermarkText };
    }
  }
  return {
    eventId: payloadEventId(sourceEventId),
    eventType: `order.${event.orderType}.completed`,
    orderId: event.orderId,
    occurredAt: event.completedAt,
    data,
    download,
    links,
  };
}

function storedDownload(event: OrderCompletedEvent): DeliveryDownloadRef | null {
  return event.download ? { bucket: event.download.bucket, key: event.download.key, fileName: event.download.fileName } : null;
}

export function failedEvent(sourceEventId: string, event: OrderFailedEvent): StoredEvent {
  return {
    eventId: payloadEventId(sourceEventId),
    eventType: `order.${event.orderType}.failed`,
    orderId: event.orderId,
    occurredAt: event.failedAt,
    data: {
      orderId: event.orderId,
      orderName: event.orderName,
      createdAt: event.createdAt,
      updatedAt: event.updatedAt,
      failedAt: event.failedAt,
      status: 'failed',
      errorCode: event.errorCode,
      errorMessage: errorMessageFor(event.errorCode),
      testMode: event.mode === 'test',
    },
    download: null,
    links: null,
  };
}

/**
 * The exact bytes sent and signed. `urls` are the fields presigned at this attempt (valid 1 hour from it):
 * `downloadUrl` of embed and anti-AI results (null when the order has no stored result) and the links.
 */
export function renderPayload(stored: Pick<StoredEvent, 'eventId' | 'eventType' | 'occurredAt' | 'data'>, urls: Record<string, string | null> = {}): string {
  const data = { ...stored.data, ...urls };
  const payload: WebhookPayload = { eventId: stored.eventId, eventType: stored.eventType, occurredAt: stored.occurredAt, data };
  return JSON.stringify(payload);
}
