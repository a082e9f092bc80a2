import { OrderCompletedEvent, OrderFailedEvent, OrderFailureCode, WebhookEventType } from '@cp/contracts';
import { createHash } from 'node:crypto';
import { DeliveryDownloadRef } from './webhook-delivery.entity';

/** Spec 6.2: the body sent to the receiver. */
export interface WebhookPayload {
  eventId: string;
  eventType: WebhookEventType;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** What a delivery stores: everything of the payload except the per-attempt `downloadUrl`. */
export interface StoredEvent {
  eventId: string;
  eventType: WebhookEventType;
  orderId: string;
  occurredAt: string;
  data: Record<string, unknown>;
  download: DeliveryDownloadRef | null;
}

/** Fixed guidance text per public failure code (spec 2.7: never raw processor output). */
const ERROR_MESSAGES: Record<string, string> = {
  [OrderFailureCode.WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED]:
    '지원하지 않는 이미지 색상 모드입니다. BMP는 24비트 RGB 또는 1/8비트 그레이스케일, TIFF는 단일 페이지 8비트 RGB 또는 1/8비트 그레이스케일(알파 없음)만 지원합니다.',
  [OrderFailureCode.WATERMARK_FILE_INVALID]: '파일을 읽을 수 없습니다. 파일 형식과 내용을 확인한 뒤 다시 시도해 주세요.',
  [OrderFailureCode.WATERMARK_FILE_TOO_LARGE]: '파일 크기가 허용 범위를 초과했습니다.',
  [OrderFailureCode.WATERMARK_SOURCE_URL_FAILED]: '원본 파일 URL에서 파일을 가져오지 못했습니다. URL이 공개 HTTPS 주소인지 확인해 주세요.',
  [OrderFailureCode.ORDER_TIMEOUT]: '12시간 안에 파일 업로드가 완료되지 않아 주문이 실패했습니다.',
  [OrderFailureCode.PROCESSING_ERROR]: '처리 중 오류가 발생했습니다. 잠시 후 다시 시도해 주세요.',
  [OrderFailureCode.WATERMARK_V2_API_SUNSET]: 'v2 워터마크 API 지원이 종료되었습니다. v3 API를 사용해 주세요.',
};

const DEFAULT_ERROR_MESSAGE = ERROR_MESSAGES[OrderFailureCode.PROCESSING_ERROR];

export function errorMessageFor(code: string): string {
  return ERROR_MESSAGES[code] ?? DEFAULT_ERROR_MESSAGE;
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
  if (event.orderType === 'watermarkEmbed') {
    data.fileCount = event.fileCount;
    download = event.download ? { bucket: event.download.bucket, key: event.download.key, fileName: event.download.fileName } : null;
  } else {
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
  };
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
  };
}

/**
 * The exact bytes sent and signed. Embed results get a `downloadUrl` presigned at each attempt (valid 1 hour
 * from that attempt; null when the order has no stored result).
 */
export function renderPayload(
  stored: Pick<StoredEvent, 'eventId' | 'eventType' | 'occurredAt' | 'data'>,
  downloadUrl: string | null | undefined,
): string {
  const data = downloadUrl === undefined ? stored.data : { ...stored.data, downloadUrl };
  const payload: WebhookPayload = { eventId: stored.eventId, eventType: stored.eventType, occurredAt: stored.occurredAt, data };
  return JSON.stringify(payload);
}
