// Webhook management commands and queries (request/reply between the gateway and the webhooks service).
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CallerScoped } from './accounts';

export const WEBHOOK_NAME_MAX_LENGTH = 100;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Largest id a webhook or delivery event path segment may carry (PostgreSQL int4 / safe integers). */
export const WEBHOOK_ID_MAX = 2_147_483_647;
export const WEBHOOK_ID_PATTERN = /^[1-9][0-9]{0,9}$/;
export const WEBHOOK_EVENT_ID_PATTERN = /^[1-9][0-9]{0,15}$/;

/** Dates of the bulk retry: `YYYY-MM-DD` or an ISO 8601 date-time with offset. */
export const WEBHOOK_RANGE_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCESS', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const WEBHOOK_EVENT_TYPES = [
  'order.antiAi.completed',
  'order.antiAi.failed',
  'order.watermarkEmbed.completed',
  'order.watermarkEmbed.failed',
  'order.watermarkExtract.completed',
  'order.watermarkExtract.failed',
  'order.aiDetection.completed',
  'order.aiDetection.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One rule set per field, shared by the HTTP bodies and the RPC commands that carry the same field. */
function rules(...decorators: PropertyDecorator[]): () => PropertyDecorator {
  return () => (target, property) => decorators.forEach((decorate) => decorate(target, property));
}

const WebhookName = rules(IsString(), IsNotEmpty(), MaxLength(WEBHOOK_NAME_MAX_LENGTH));
const WebhookUrl = rules(IsString(), IsNotEmpty(), MaxLength(WEBHOOK_URL_MAX_LENGTH));
const WebhookActive = rules(IsOptional(), IsBoolean());
const EventsPage = rules(IsInt(), Min(1), Max(100_000));
const EventsLimit = rules(IsInt(), Min(1), Max(100));
const EventStatusFilter = rules(IsOptional(), IsIn(WEBHOOK_DELIVERY_STATUSES));

// ---- HTTP bodies and queries (validated by the gateway) ----

/** `POST /api/v2/orders/webhooks` */
export class CreateWebhookBody {
  @ApiProperty({ maxLength: WEBHOOK_NAME_MAX_LENGTH, example: 'orders to the CMS' })
  @WebhookName()
  name!: string;

  @ApiProperty({ maxLength: WEBHOOK_URL_MAX_LENGTH, format: 'uri', example: 'https://hooks.example.com/content-protection' })
  @WebhookUrl()
  url!: string;
}

/** `PUT /api/v2/orders/webhooks/{webhookId}`; `isActive` is our addition (pause without deleting). */
export class UpdateWebhookBody extends CreateWebhookBody {
  @ApiPropertyOptional({ description: 'false pauses deliveries without deleting the webhook', example: true })
  @WebhookActive()
  isActive?: boolean;
}

/** `POST /api/v2/orders/webhooks/{webhookId}/events/retry-failed` */
export class RetryFailedWebhookEventsBody {
  @ApiProperty({ description: 'start of the range (date or date-time); the range spans at most 7 days', example: '2026-11-16' })
  @IsString()
  @Matches(WEBHOOK_RANGE_DATE_PATTERN)
  fromDate!: string;

  @ApiProperty({ description: 'end of the range (date or date-time)', example: '2026-11-23' })
  @IsString()
  @Matches(WEBHOOK_RANGE_DATE_PATTERN)
  toDate!: string;
}

/** Query of `GET /api/v2/orders/webhooks/{webhookId}/events`. */
export class ListWebhookEventsParams {
  @ApiPropertyOptional({ minimum: 1, maximum: 100_000, default: 1, example: 1 })
  @IsOptional()
  @Type(() => Number)
  @EventsPage()
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @EventsLimit()
  limit?: number;

  @ApiPropertyOptional({ enum: WEBHOOK_DELIVERY_STATUSES, example: 'FAILED' })
  @EventStatusFilter()
  status?: WebhookDeliveryStatus;
}

// ---- RPC commands and queries ----

class WebhookCallerPayload extends CallerScoped {}

/** `webhooks.list` */
export class ListWebhooksQuery extends WebhookCallerPayload {}

/** `webhooks.get`, `webhooks.delete` */
export class WebhookRefQuery extends WebhookCallerPayload {
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_ID_MAX)
  webhookId!: number;
}

/** `webhooks.create` */
export class CreateWebhookCommand extends WebhookCallerPayload {
  @WebhookName()
  name!: string;

  @WebhookUrl()
  url!: string;
}

/** `webhooks.update` */
export class UpdateWebhookCommand extends WebhookRefQuery {
  @WebhookName()
  name!: string;

  @WebhookUrl()
  url!: string;

  @WebhookActive()
  isActive?: boolean;
}

/** `webhooks.list-events` */
export class ListWebhookEventsQuery extends WebhookRefQuery {
  @EventsPage()
  page!: number;

  @EventsLimit()
  limit!: number;

  @EventStatusFilter()
  status?: WebhookDeliveryStatus;
}

/** `webhooks.retry-event`: one delivery event, attempted at once. */
export class RetryWebhookEventCommand extends WebhookRefQuery {
  /** The delivery event's integer id, as a string (bigint). */
  @Matches(WEBHOOK_EVENT_ID_PATTERN)
  eventId!: string;
}

/** `webhooks.retry-failed`: every FAILED event created in the range is queued again. */
export class RetryFailedWebhookEventsCommand extends WebhookRefQuery {
  @IsString()
  @Matches(WEBHOOK_RANGE_DATE_PATTERN)
  fromDate!: string;

  @IsString()
  @Matches(WEBHOOK_RANGE_DATE_PATTERN)
  toDate!: string;
}

// ---- Views ----

/** Spec 2.8 without the secret. */
export interface WebhookView {
  id: number;
  name: string;
  url: string;
  isActive: boolean;
  updatedAt: string;
}

/** The create response: the only time the secret is shown. */
export interface CreatedWebhookView extends WebhookView {
  secret: string;
}

export interface DeletedWebhookView {
  id: number;
  deleted: true;
}

/** One entry of the delivery event list. */
export interface WebhookEventView {
  /** Integer id used in the retry path. */
  id: number;
  /** The payload's `eventId` (UUID, the same on every attempt). */
  eventId: string;
  eventType: WebhookEventType;
  orderId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

export interface WebhookEventPageView {
  items: WebhookEventView[];
  page: number;
  limit: number;
  total: number;
}

/** Spec 4.16 retry-one response (snake_case as published). */
export interface WebhookEventRetryView {
  event_id: string;
  success: boolean;
  status_code: number | null;
  status: WebhookDeliveryStatus;
  error: string | null;
}

export interface WebhookRetryFailedView {
  fromDate: string;
  toDate: string;
  /** FAILED events queued for delivery again. */
  retried: number;
}
