import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsObject, IsInt, IsISO8601, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { OrderStatus } from './order-values';
import { EventSubjects } from './subjects';
import { IsNestedObject } from './validators';

/** Spec 1: the four order types (each is one folder in the orders service, `apps/orders/src/order-types/`). */
export const ORDER_TYPES = ['watermarkEmbed', 'watermarkExtract', 'aiDetection', 'antiAi'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/**
 * Order types whose result files are served through the gateway's results relay with the AI-training opt-out
 * headers (docs/anti-ai.md). Declared once: the orders service (download links) and the webhooks service
 * (`downloadUrl`) both ask here.
 */
const OPT_OUT_RESULT_TYPES: ReadonlySet<string> = new Set<OrderType>(['antiAi']);
export function resultsCarryOptOut(orderType: string): boolean {
  return OPT_OUT_RESULT_TYPES.has(orderType);
}
/** @deprecated the name from when only watermark orders existed; use OrderType. */
export type WatermarkOrderType = OrderType;

/** Where a finished order's result can be downloaded (the webhooks service presigns it for 1 hour). */
export class StoredObjectRef {
  @IsString()
  bucket!: string;

  @IsString()
  key!: string;

  /** File name the download should carry. */
  @IsString()
  fileName!: string;
}

/**
 * The bytes a processor examined, as it read them: a report certifies these, not whatever the storage key holds
 * when the report is made (an upload URL stays valid for its whole lifetime, so the client can replace the object
 * after it was read).
 */
export class ExaminedBytes {
  @Matches(/^[0-9a-f]{64}$/)
  sha256!: string;

  @IsInt()
  @Min(0)
  size!: number;
}

/** One presigned link of a webhook payload: `data[field]` becomes a 1-hour URL of `object`. */
export class WebhookLink {
  @Matches(/^[a-z][A-Za-z]{0,40}Url$/)
  field!: string;

  @IsNestedObject(() => StoredObjectRef)
  object!: StoredObjectRef;
}

/** Extract outcome carried by the completed event (spec 6.2). */
export class ExtractOutcome {
  @IsIn(['detected', 'undetected'])
  statusCode!: 'detected' | 'undetected';

  @IsBoolean()
  watermarkFound!: boolean;

  /** Only when found and the caller's own account made the issuance. */
  @IsOptional()
  @IsString()
  watermarkText?: string | null;
}

/** Which order an event is about, and whose. */
class OrderIdentity {
  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @IsIn(['live', 'test'])
  mode!: 'live' | 'test';

  @IsIn(ORDER_TYPES)
  orderType!: WatermarkOrderType;
}

class OrderEventBase extends OrderIdentity {
  @IsIn(['v2', 'v3'])
  apiVersion!: 'v2' | 'v3';

  @IsString()
  orderName!: string;

  @IsISO8601()
  createdAt!: string;

  @IsISO8601()
  updatedAt!: string;
}

/** `evt.orders.order.completed`: an order reached `complete`. */
export class OrderCompletedEvent extends OrderEventBase {
  static readonly subject = EventSubjects.orderCompleted;

  @IsISO8601()
  completedAt!: string;

  @IsInt()
  @Min(0)
  fileCount!: number;

  /** Embed orders: the result file or ZIP (null for test orders' sample files is not used: a sample is given). */
  @IsOptional()
  @IsNestedObject(() => StoredObjectRef)
  download?: StoredObjectRef | null;

  /** Extract orders. */
  @IsOptional()
  @IsNestedObject(() => ExtractOutcome)
  extract?: ExtractOutcome | null;

  /**
   * Objects the webhook `data` links to besides `downloadUrl` (e.g. an AI detection heatmap): the webhooks
   * service presigns each for 1 hour at every attempt and sets it as `data[field]`.
   */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => WebhookLink)
  links?: WebhookLink[];

  /**
   * The order type's own fields of the webhook `data` (spec 6.2), declared by its order-type folder in the
   * orders service; the webhooks service adds them to the common fields.
   */
  @IsOptional()
  @IsObject()
  webhookData?: Record<string, unknown>;
}

/** `evt.orders.order.failed`: an order reached `failed`. */
export class OrderFailedEvent extends OrderEventBase {
  static readonly subject = EventSubjects.orderFailed;

  @IsISO8601()
  failedAt!: string;

  /** A public order failure code (OrderFailureCode). */
  @IsString()
  errorCode!: string;
}

/** `evt.orders.order.status-changed`: every change of an order's status. */
export class OrderStatusChangedEvent extends OrderIdentity {
  static readonly subject = EventSubjects.orderStatusChanged;

  @IsIn(['pending', 'inProgress', 'complete', 'failed', 'expired'])
  status!: OrderStatus;

  /** When the order's files are deleted (the retention service schedules the expiry from it). */
  @IsOptional()
  @IsISO8601()
  expiresAt?: string;

  @IsOptional()
  @IsIn(['v2', 'v3'])
  apiVersion?: 'v2' | 'v3';
}
