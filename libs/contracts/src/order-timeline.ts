import { Matches } from 'class-validator';
import { ORDER_ID_PATTERN } from './order-values';

/**
 * Operators only (the admin CLI, the orders service's internal route): every step the services recorded for
 * one order. Not scoped to a caller: no public route sends it.
 */
export class OrderTimelineQuery {
  @Matches(ORDER_ID_PATTERN)
  orderId!: string;
}

/** One recorded step of an order, as the service that recorded it tells it. */
export interface OrderTimelineStep {
  /** ISO 8601 time of the step (its start, for a job attempt). */
  at: string;
  /** The service that recorded it (`orders`, `uploads`, `watermark-processor`, …). */
  service: string;
  /** What happened, e.g. `order created`, `file uploaded`, `job watermark-embed attempt 2 error`. */
  step: string;
  /** More about it: the reason of a failure, a status code, a file name. */
  detail?: string;
  durationMs?: number;
}

/** One service's steps of an order (`<service>.order-steps`). */
export interface OrderStepsView {
  steps: OrderTimelineStep[];
}

/** The whole timeline (`orders.order-timeline`): every service's steps in time order; services that did not answer listed. */
export interface OrderTimelineView {
  orderId: string;
  steps: OrderTimelineStep[];
  unavailable: string[];
}
