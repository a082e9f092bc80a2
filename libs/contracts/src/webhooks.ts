// Webhook management commands and queries (request/reply between the gateway and the webhooks service).
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CallerScoped } from './accounts';
import { IsCalendarDateOrDateTime, IsOptionalNotNull, Trimmed } from './validators';

export const WEBHOOK_NAME_MAX_LENGTH = 100;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Largest id a webhook or delivery event path segment may carry (PostgreSQL int4 / safe integers). */
export const WEBHOOK_ID_MAX = 2_147_483_647;
export const WEBHOOK_ID_PATTERN = /^[1-9][0-9]{0,9}$/;
export const WEBHOOK_EVENT_ID_PATTERN = /^[1-9][0-9]{0,15}$/;

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

// Name and URL are stored trimmed; trimmed before their rules so that only white space is empty (400), not "" stored.
const WebhookName = rules(Trimmed(), IsString(), IsNotEmpty(), MaxLength(WEBHOOK_NAME_MAX_LENGTH));
const WebhookUrl = rules(Trimmed(), IsString(), IsNotEmpty(), MaxLength(WEBHOOK_URL_MAX_LENGTH));
const WebhookActive = rules(IsOptionalNotNull(), IsBoolean());
const EventsPage = rules(IsInt(), Min(1), Max(100_000));
/**
 * A query's integer as decimal digits only: `Number()` also reads `1e3`, `0x10`, ` 5` and `1.0`, which are refused
 * (left as text, the integer rule fails) instead of becoming 1000, 16, 5 and 1.
 */
const DecimalDigits = (): PropertyDecorator => Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value));
const EventsLimit = rules(IsInt(), Min(1), Max(100));
const EventStatusFilter = rules(IsOptionalNotNull(), IsIn(WEBHOOK_DELIVERY_STATUSES));

// ---- HTTP bodies and queries (validated by the gateway) ----

/** `POST /api/v2/orders/webhooks` */
export class CreateWebhookBody {
  @ApiProperty({ minLength: 1, maxLength: WEBHOOK_NAME_MAX_LENGTH, example: 'orders to the CMS' })
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
  @IsCalendarDateOrDateTime()
  fromDate!: string;

  @ApiProperty({ description: 'end of the range (date or date-time)', example: '2026-11-23' })
  @IsString()
  @IsCalendarDateOrDateTime()
  toDate!: string;
}

/** Query of `GET /api/v2/orders/webhooks/{webhookId}/events`. */
export class ListWebhookEventsParams {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100_000, default: 1, example: 1 })
  @IsOptionalNotNull()
  @DecimalDigits()
  @EventsPage()
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 20 })
  @IsOptionalNotNull()
  @DecimalDigits()
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
  @IsCalendarDateOrDateTime()
  fromDate!: string;

  @IsString()
  @IsCalendarDateOrDateTime()
  toDate!: string;
}

// ---- Views ----
// The views are classes so that the gateway's OpenAPI document generates their schemas from these decorators
// (one source, issue 31): `@ApiSchema` keeps the published schema names, without the `View` suffix.

const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** Spec 2.8 without the secret. */
@ApiSchema({ name: 'Webhook', description: 'Webhook resource (spec 2.8), never with its secret.' })
export class WebhookView {
  @ApiProperty({ type: 'integer', example: 7 })
  id!: number;
  @ApiProperty({ example: 'orders to the CMS' })
  name!: string;
  @ApiProperty({ format: 'uri', example: 'https://hooks.example.com/content-protection' })
  url!: string;
  @ApiProperty({ example: true })
  isActive!: boolean;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-23T10:00:00.000Z' })
  updatedAt!: string;
}

/**
 * The create response: the only time the secret is shown. Its schema stays hand-written in the gateway
 * (`allOf: [Webhook, {secret}]`): decorators on a subclass would flatten it into a copy of Webhook's fields.
 */
export interface CreatedWebhookView extends WebhookView {
  secret: string;
}

/**
 * Its schema stays hand-written in the gateway: `deleted` is the enumeration `[true]`, and @nestjs/swagger
 * types every enumeration without a string as a number.
 */
export interface DeletedWebhookView {
  id: number;
  deleted: true;
}

/** One entry of the delivery event list. */
@ApiSchema({ name: 'WebhookEvent', description: 'One delivery event of a webhook.' })
export class WebhookEventView {
  /** Integer id used in the retry path. */
  @ApiProperty({ type: 'integer', example: 1201 })
  id!: number;
  /** The payload's `eventId` (UUID, the same on every attempt). */
  @ApiProperty({ format: 'uuid', example: '0b8e4d02-5c55-4d4e-9a55-4f7f4b8a9b0e' })
  eventId!: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES], example: 'order.watermarkEmbed.completed' })
  eventType!: WebhookEventType;
  @ApiProperty({ example: '42' })
  orderId!: string;
  @ApiProperty({ enum: [...WEBHOOK_DELIVERY_STATUSES], example: 'SUCCESS' })
  status!: WebhookDeliveryStatus;
  @ApiProperty({ type: 'integer', example: 1 })
  attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 200 })
  lastStatusCode!: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'why the last attempt failed; `null` before any attempt and after a successful one', example: 'no response within 5000 ms' })
  error!: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-23T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-23T10:00:01.000Z' })
  lastAttemptAt!: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true, example: '2026-11-23T10:30:01.000Z' })
  nextAttemptAt!: string | null;
}

@ApiSchema({ name: 'WebhookEventPage' })
export class WebhookEventPageView {
  @ApiProperty({ type: () => [WebhookEventView] })
  items!: WebhookEventView[];
  @ApiProperty({ type: 'integer', example: 1 })
  page!: number;
  @ApiProperty({ type: 'integer', example: 20 })
  limit!: number;
  @ApiProperty({ type: 'integer', example: 1 })
  total!: number;
}

/** Spec 4.16 retry-one response (snake_case as published). */
@ApiSchema({ name: 'WebhookEventRetry', description: 'Outcome of the one delivery attempt made by the retry (snake_case as published, spec 4.16).' })
export class WebhookEventRetryView {
  /** The payload's `eventId` (a UUID), not the delivery event's `id` of the retry path. */
  @ApiProperty({ format: 'uuid', description: 'the payload `eventId` of the event sent again', example: '0b8e4d02-5c55-4d4e-9a55-4f7f4b8a9b0e' })
  event_id!: string;
  @ApiProperty({ example: false })
  success!: boolean;
  /** Never null: 0 stands for "no HTTP answer" (timeout, refused connection, blocked target, inactive webhook). */
  @ApiProperty({ type: 'integer', minimum: 0, description: 'the receiver\'s HTTP status; `0` when no HTTP answer came back', example: 500 })
  status_code!: number;
  @ApiProperty({ enum: [...WEBHOOK_DELIVERY_STATUSES], example: 'FAILED' })
  status!: WebhookDeliveryStatus;
  /** Null when the attempt succeeded (spec 4.16 types it a string and says no more; "no error" has one spelling). */
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'why the attempt failed, or why nothing was sent (an inactive webhook); `null` when it succeeded (`success: true`)',
    example: 'HTTP 500',
  })
  error!: string | null;
}

@ApiSchema({ name: 'WebhookRetryFailed' })
export class WebhookRetryFailedView {
  @ApiProperty({ ...DATE_TIME, example: '2026-11-16T00:00:00.000Z' })
  fromDate!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-11-23T00:00:00.000Z' })
  toDate!: string;
  /** FAILED events queued for delivery again. */
  @ApiProperty({ type: 'integer', example: 3 })
  retried!: number;
}
