import { ClassConstructor } from 'class-transformer';

/**
 * A message declared once with its payload class, so both ends are checked by the compiler:
 * `outbox.add(tx, Events.orderCompleted, payload)`, `rpc.request(Rpcs.ordersGet, query)`,
 * `messaging.register({ message: Events.fileUploaded, … })`.
 */
export interface EventContract<TPayload extends object> {
  readonly kind: 'event';
  readonly subject: string;
  readonly payload: ClassConstructor<TPayload>;
}

/** A work item on the JOBS stream (work-queue retention, one durable consumer per kind). */
export interface JobContract<TPayload extends object> {
  readonly kind: 'job';
  readonly subject: string;
  readonly payload: ClassConstructor<TPayload>;
  /**
   * Default wall-clock budget of one attempt at this job: past it the consumer abandons the attempt and counts it
   * as failed. Declared with the job so every consumer of it agrees; an operator overrides it per consumer with
   * `JOB_DEADLINE_MS_<DURABLE>` (see `@cp/messaging`).
   */
  readonly deadlineMs: number;
  /**
   * Which part of its order one job is (its output, its file), as the job's result events name it: a service that
   * holds an account's jobs back while earlier ones run (`OutboxShare`) frees one when a result names its unit.
   * Absent: the job is the whole order's (extract, package).
   */
  unitOf?(payload: TPayload): string;
}

/** Something written to an outbox and relayed to JetStream: an event or a job. */
export type MessageContract<TPayload extends object> = EventContract<TPayload> | JobContract<TPayload>;

/** A request/reply pattern with its request class and (compile-time only) response type. */
export interface RpcContract<TRequest extends object, TResponse> {
  readonly kind: 'rpc';
  readonly pattern: string;
  readonly request: ClassConstructor<TRequest>;
  /** Never set: carries the response type for `RpcClient.request`. */
  readonly response?: TResponse;
  /**
   * Safe to send again when the first request may or may not have been handled (a query, or a command that
   * answers a repeat with the first outcome, e.g. by its idempotency key): `RpcClient` then retries a request
   * that got no answer (lost with a NATS node) within its timeout. Unset: only a request nobody received
   * ("no responders") is sent again.
   */
  readonly idempotent?: boolean;
}

export interface RpcOptions {
  /** See `RpcContract.idempotent`. */
  idempotent?: boolean;
}

export function defineEvent<TPayload extends object>(subject: string, payload: ClassConstructor<TPayload>): EventContract<TPayload> {
  return { kind: 'event', subject, payload };
}

export function defineJob<TPayload extends object>(
  subject: string,
  payload: ClassConstructor<TPayload>,
  deadlineMs: number,
  unitOf?: (payload: TPayload) => string,
): JobContract<TPayload> {
  return { kind: 'job', subject, payload, deadlineMs, ...(unitOf ? { unitOf } : {}) };
}

/** The unit of an order a job is (`JobContract.unitOf`); `ORDER_UNIT` for a job of the whole order. */
export function jobUnitOf<TPayload extends object>(contract: JobContract<TPayload>, payload: TPayload): string {
  return contract.unitOf ? contract.unitOf(payload) : ORDER_UNIT;
}

/** The unit of a job that is its whole order's (extract, package). */
export const ORDER_UNIT = 'order';

/** `defineRpc<ResponseView>()(pattern, RequestClass, { idempotent })`: the response type is given, the request inferred. */
export function defineRpc<TResponse>() {
  return <TRequest extends object>(pattern: string, request: ClassConstructor<TRequest>, options: RpcOptions = {}): RpcContract<TRequest, TResponse> => ({
    kind: 'rpc',
    pattern,
    request,
    idempotent: options.idempotent ?? false,
  });
}

/**
 * A job's place in its account's share of a work queue: the outbox relay sends at most `limit` jobs of one `key`
 * (a queue and an account) that are not finished yet, oldest first, and holds the others back, so one account's
 * thousand jobs do not stand in front of every other account's one. The writer frees a job when a result names
 * its `order` and `unit`, and all of an order's when the order ends (its held jobs are then never sent).
 */
export interface OutboxShare {
  readonly key: string;
  readonly order: string;
  readonly unit: string;
  readonly limit: number;
}

/**
 * `job` held to `accountId`'s share of its queue (at most `limit` of the account's jobs of that queue unfinished):
 * the key is the queue and the account, the unit the one its results name (`jobUnitOf`).
 */
export function sharedJob<TPayload extends object>(
  contract: JobContract<TPayload>,
  payload: TPayload,
  share: { accountId: string; order: string; limit: number },
): OutboxMessage<TPayload> {
  return { contract, payload, share: { key: `${contract.subject}:${share.accountId}`, order: share.order, unit: jobUnitOf(contract, payload), limit: share.limit } };
}

/** A message ready for the outbox: its declaration and a payload of the declared class (a job: maybe its share). */
export interface OutboxMessage<TPayload extends object = object> {
  readonly contract: MessageContract<TPayload>;
  readonly payload: TPayload;
  readonly share?: OutboxShare;
}

export function message<TPayload extends object>(contract: MessageContract<TPayload>, payload: TPayload): OutboxMessage<TPayload> {
  return { contract, payload };
}
