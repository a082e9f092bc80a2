import { ArrayMaxSize, ArrayMinSize, IsArray, Matches } from 'class-validator';

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
