import { Durable, EventContract, ORDER_UNIT, OrderType, OutboxMessage, ReportContextFile, ReportContextView, ReportType, StoredObjectRef, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { Provider, Type } from '@nestjs/common';
import { Order } from '../domain/order';

/** What an order type needs to start processing or complete an order. */
export interface ProcessingContext {
  now: Date;
  buckets: { inputs: string; outputs: string };
}

/**
 * URLs of the objects a view links to, presigned for 1 hour by the read that asked for them
 * (`OrderTypeDefinition.linkedObjects`); null for an absent object and once the order expired (its objects
 * are deleted then).
 */
export interface ObjectUrls {
  of(ref: StoredObjectRef | null | undefined): string | null;
}

/**
 * A result event of this type's workers and how it maps onto the order. The common results consumer
 * registers one durable consumer per handler, locks the order, and applies the handler only while the
 * order is `inProgress`; the order is saved with the returned events in the same transaction.
 */
export interface ResultHandler {
  /** Declared in `DURABLES` of @cp/contracts (an operator addresses the consumer by it). */
  readonly durable: Durable;
  readonly contract: EventContract<object>;
  orderIdOf(event: object): string;
  /**
   * The unit of the job (`JobContract.unitOf`) this event is the last word of (its result, its failure, its
   * attempts used up), freeing its place in the account's share; absent for events in the middle of a job.
   */
  endedUnit?(event: object): string;
  apply(order: Order, event: object, context: ProcessingContext): OutboxMessage[];
}

export function onResult<TEvent extends { orderId: string }>(
  durable: Durable,
  contract: EventContract<TEvent>,
  apply: (order: Order, event: TEvent, context: ProcessingContext) => OutboxMessage[],
  endedUnit?: (event: TEvent) => string,
): ResultHandler {
  return {
    durable,
    contract,
    // The consumer validated the payload against `contract.payload` before calling these.
    orderIdOf: (event) => (event as TEvent).orderId,
    ...(endedUnit ? { endedUnit: (event: object) => endedUnit(event as TEvent) } : {}),
    apply: (order, event, context) => apply(order, event as TEvent, context),
  };
}

/** `onResult`'s last argument for a result of a job of the whole order (extract, package, their attempts used up). */
export const endsOrderJob = (): string => ORDER_UNIT;

/**
 * One order type (spec 1). Its folder under `order-types/` holds this definition, its creation use cases
 * (creation rules and credit cost) and the RPC controller of its creation endpoints. The common lifecycle
 * (the `Order` aggregate), idempotency, credits, uploads, expiry, sandbox behaviour, downloads and reports
 * are written once and used by every type.
 */
export interface OrderTypeDefinition {
  readonly type: OrderType;
  /** The report this type's orders can have (null: none); the reports service decides from the context whether the result is reportable. */
  readonly reportType: ReportType | null;
  /** This type's part of the report context (`inputs`: the order's files as the reports service reads them). */
  reportContext?(order: Order, inputs: ReportContextFile[]): Partial<ReportContextView>;
  /**
   * Whether a pending order starts when its last file arrives: yes for most types; AI detection (spec 4.15)
   * only when the client confirmed it before.
   */
  startsOnLastFile(order: Order): boolean;
  /** Result events of this type's workers. */
  readonly results: readonly ResultHandler[];
  /** Live key: the jobs that process an order that just moved to `inProgress` (or its completion when none are needed). */
  startLive(order: Order, context: ProcessingContext): OutboxMessage[];
  /** Test key (spec 4.17): simulated results at once, no worker, no result files. */
  startSandbox(order: Order, context: ProcessingContext): OutboxMessage[];
  /** This type's fields of the completed webhook's `data` (spec 6.2). */
  webhookData(order: Order): Record<string, unknown>;
  /** The stored objects its views link to (images of a result), presigned by the reads into `ObjectUrls`. */
  linkedObjects(order: Order): StoredObjectRef[];
  /** Spec 2.1: the v3 view (`uploadUrls`: fresh URLs of the files still waiting for an upload). */
  v3View(order: Order, uploadUrls: Record<string, string>, urls: ObjectUrls): WatermarkOrderView;
  /**
   * Spec 2.7: this type's fields of the v2 detail (the common ones are filled by the v2 mapper; a
   * `thumbnailImageUrl` given here replaces the common one, the first stored input).
   */
  v2Detail(order: Order, urls: ObjectUrls): Partial<V2OrderDetailView>;
}

/** Injection token of the definition classes of every folder (`OrderTypeRegistry` resolves them). */
export const ORDER_TYPE_DEFINITIONS = Symbol('ORDER_TYPE_DEFINITIONS');

/** One folder under `order-types/`: its definition, its use cases and its RPC controller (listed in `order-types.ts`). */
export interface OrderTypeFolder {
  definition: Type<OrderTypeDefinition>;
  providers: Provider[];
  controllers: Array<Type<unknown>>;
}
