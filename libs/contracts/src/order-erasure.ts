import { Matches } from 'class-validator';
import type { Durable } from './durables';
import { ORDER_ID_PATTERN } from './order-values';
import { EventSubjects } from './subjects';

/**
 * `orders.erase-order`, operators only (`admin order erase`): the orders service deletes one order's records (the
 * order, its files, outputs with their watermark texts, report states, idempotency records) and, in the same
 * transaction, announces `OrderErasureRequestedEvent` through its outbox. Not scoped to a caller: no public route
 * sends it. Asked again for an order it erased (a reply lost on the way), it answers that erasure again (`repeated`),
 * however long after (`orders.order_erasure`). An unknown order, one of another account, or one erased with its
 * account: `RESOURCE_NOT_FOUND`.
 */
export class EraseOrderCommand {
  @Matches(ORDER_ID_PATTERN)
  orderId!: string;

  /** The account the operator means the order to be of: an order id mistyped (into another account's) erases nothing. */
  @Matches(ORDER_ID_PATTERN)
  accountId!: string;
}

export interface OrderErasureView {
  /** `OrderErasureRequestedEvent.erasureId`, also the event's id. */
  erasureId: string;
  accountId: string;
  orderId: string;
  /**
   * The order's status when it was erased (an unfinished one is not refunded: an erasure is not a cancellation); null
   * in a repeated answer (the order is gone, and its status with it).
   */
  status: string | null;
  /** When the event was written (`EventEnvelope.occurredAt`). */
  requestedAt: string;
  /** The order was erased by an earlier request: this answer is that erasure's, and nothing more was written. */
  repeated: boolean;
}

/**
 * `evt.orders.order.erasure-requested`: an operator erased one order (`admin order erase`). The orders service has
 * already deleted its records (the owner gets 404 for it from then on); every other service deletes the order's
 * rows in its own schema when it consumes this (the watermark processor its issuances, uploads its slots, reports
 * its report, webhooks its deliveries) and retention every object under its prefix. Idempotent.
 */
export class OrderErasureRequestedEvent {
  static readonly subject = EventSubjects.orderErasureRequested;

  @Matches(/^[0-9a-f-]{36}$/)
  erasureId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @Matches(ORDER_ID_PATTERN)
  orderId!: string;
}

/** What an operator erased: a whole account, or one order of it (`orderId`); what each service's erasure use case takes. */
export interface ErasureScope {
  accountId: string;
  orderId?: string;
}

/**
 * The durable consumers of `OrderErasureRequestedEvent`, one per service holding order data besides orders (which
 * erased its rows when it wrote the event): the admin CLI waits until each has acknowledged the erasure.
 */
export const OrderErasureConsumers = {
  uploads: 'uploads-order-erasure',
  watermark: 'watermark-order-erasure',
  reports: 'reports-order-erasure',
  webhooks: 'webhooks-order-erasure',
  retention: 'retention-order-erasure',
} as const satisfies Record<string, Durable>;
