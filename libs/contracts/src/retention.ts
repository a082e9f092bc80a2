import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsISO8601, IsOptional, Matches, Max, Min } from 'class-validator';
import { KeyMode } from './accounts';
import { EventSubjects } from './subjects';
import { IsNestedObject } from './validators';

/** Largest batch the retention service hands to `orders.expire` in one request. */
export const EXPIRE_ORDERS_MAX_BATCH = 1000;

/**
 * `orders.expire`: the retention service asks orders to mark these orders `expired` and forget their
 * result object keys, before it deletes the objects (so no row ever points at a deleted object).
 * Idempotent: already expired orders are reported again.
 */
export class ExpireOrdersCommand {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EXPIRE_ORDERS_MAX_BATCH)
  @Matches(/^[0-9]{1,20}$/, { each: true })
  orderIds!: string[];
}

export interface ExpireOrdersResult {
  /** Orders that are `expired` now (including those that already were). */
  expired: string[];
  /** Ids orders does not know, or whose retention period has not ended (the schedule is rechecked later). */
  skipped: string[];
}

/**
 * Largest page of `orders.expiry-schedules`. One schedule is about 130 bytes of JSON at most (two 20-digit ids, the
 * mode, a timestamp to the microsecond), so a full page stays near 130 KiB, far under NATS's 1 MiB payloads.
 */
export const EXPIRY_SCHEDULES_MAX_PAGE = 1000;

/** A timestamp as orders keeps it: ISO 8601 in UTC, to the microsecond (PostgreSQL's precision), so a cursor is exact. */
const UTC_TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z$/;

/** A place in the walk over orders by (`expiresAt`, `orderId`): the last schedule of the previous page. */
export class ExpiryScheduleCursor {
  @IsISO8601({ strict: true })
  @Matches(UTC_TIMESTAMP)
  expiresAt!: string;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

/**
 * `orders.expiry-schedules`: the retention service's reconciliation reads every order's expiry from its owner,
 * the orders service, in pages by (`expiresAt`, `orderId`), so an order whose status events it never got (the
 * EVENTS stream is bounded by age and size) is still scheduled. Only orders whose `expiresAt` ≤ `expiresUpTo`;
 * after `after` (exclusive), or from the first order when absent. A read: repeating it is harmless.
 */
export class ExpirySchedulesQuery {
  @IsOptional()
  @IsNestedObject(() => ExpiryScheduleCursor)
  after?: ExpiryScheduleCursor;

  @IsISO8601({ strict: true })
  @Matches(UTC_TIMESTAMP)
  expiresUpTo!: string;

  @IsInt()
  @Min(1)
  @Max(EXPIRY_SCHEDULES_MAX_PAGE)
  limit!: number;
}

/** One order's expiry, as the retention service schedules it (test orders too: their objects are deleted as well). */
export interface ExpiryScheduleView {
  orderId: string;
  accountId: string;
  mode: KeyMode;
  /** As `ExpiryScheduleCursor.expiresAt`: UTC, to the microsecond. */
  expiresAt: string;
}

/** At most `limit` schedules in (`expiresAt`, `orderId`) order; fewer than `limit`: the walk reached `expiresUpTo`. */
export interface ExpirySchedulesPage {
  schedules: ExpiryScheduleView[];
}

/** Largest page of `orders.failed-orders`: a failed order is about 180 bytes of JSON at most, a full page under 200 KiB. */
export const FAILED_ORDERS_MAX_PAGE = 1000;

/** A place in the walk over failed orders by (`failedAt`, `orderId`): the last order of the previous page. */
export class FailedOrderCursor {
  @IsISO8601({ strict: true })
  @Matches(UTC_TIMESTAMP)
  failedAt!: string;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;
}

/**
 * `orders.failed-orders`: the retention service's reconciliation of failed orders reads every order that ever failed
 * from its owner, the orders service, in pages by (`failedAt`, `orderId`), so an order whose `failed` status event it
 * never got still has its objects deleted a grace period after its failure, not at its expiry. Only orders whose
 * `failedAt` ≤ `failedUpTo`; after `after` (exclusive), or from the first when absent. A read: repeating it is harmless.
 */
export class FailedOrdersQuery {
  @IsOptional()
  @IsNestedObject(() => FailedOrderCursor)
  after?: FailedOrderCursor;

  @IsISO8601({ strict: true })
  @Matches(UTC_TIMESTAMP)
  failedUpTo!: string;

  @IsInt()
  @Min(1)
  @Max(FAILED_ORDERS_MAX_PAGE)
  limit!: number;
}

/** One order that failed (whatever its status now: a failed order later expires), as retention schedules it. */
export interface FailedOrderView {
  orderId: string;
  accountId: string;
  mode: KeyMode;
  /** UTC, to the microsecond. */
  expiresAt: string;
  /** UTC, to the microsecond (the cursor's time). */
  failedAt: string;
}

/** At most `limit` orders in (`failedAt`, `orderId`) order; fewer than `limit`: the walk reached `failedUpTo`. */
export interface FailedOrdersPage {
  orders: FailedOrderView[];
}

/**
 * `evt.retention.test-order.retention-ended`: a test order's retention period ended and retention deleted its
 * objects. Test orders are never `expired` (spec 3: test statuses only), so this takes the place of the `expired`
 * status event for the per-order cleanup of personal data: each owning service deletes or forgets its own copy
 * (orders: the client's URLs; uploads: the slots; webhooks: the deliveries). Published through retention's outbox
 * once the objects are gone; every handler is idempotent, so a redelivery or a second publish changes nothing.
 */
export class TestOrderRetentionEndedEvent {
  static readonly subject = EventSubjects.testOrderRetentionEnded;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;
}
