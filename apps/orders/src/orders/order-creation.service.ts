import { Clock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, isV2Retired, OrderType, OutboxMessage } from '@cp/contracts';
import { ErasedScopesRepository, Transaction, TransactionRepository } from '@cp/database';
import { annotateActiveSpan } from '@cp/tracing';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ApiVersion, Order, OrderFileState, OrderOptions, OrderOutputState } from '../domain/order';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { IdempotencyKeyTakenError, IdempotencyRepository, IdempotencyScope } from './idempotency.repository';
import { OrderDraft, OrdersRepository } from './orders.repository';
import { UploadsClient } from './uploads.client';

const DAY_MS = 24 * 3600_000;

/** JSON with sorted keys, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

/** What an order type's creation use case decides: its creation rules and credit cost. */
export interface NewOrder {
  caller: CallerContext;
  type: OrderType;
  /** The creation endpoint (idempotency keys are scoped per endpoint). */
  operation: string;
  idempotencyKey: string;
  request: object;
  /** Credits a live order costs (test orders are free). */
  credits: number;
  files: OrderDraft['files'];
  /** Outputs of the new order, made once the file ids are known. */
  outputs?: (files: OrderFileState[]) => OrderOutputState[];
  /** The type's own transitions right after `created` (anti-AI with URLs starts at once, spec 3.1). */
  afterCreation?: (order: Order, now: Date) => OutboxMessage[];
  /** The type's creation options, kept with the order for its processing (plain JSON). */
  options?: OrderOptions;
  /** Default `v3`; `v2` orders of the retired watermark API are refused after the retirement. */
  apiVersion?: ApiVersion;
  /**
   * v3: the same key with another body is 409. v2 (spec 5.6): the same key returns the original order
   * whatever the body.
   */
  conflictOnOtherBody?: boolean;
}

/** A created (or replayed) order with the upload URLs of its files still waiting for an upload. */
export interface CreatedOrder {
  order: Order;
  uploadUrls: Record<string, string>;
}

/**
 * What every order creation shares: idempotency per account and key (the record's primary key serialises
 * concurrent identical requests; another body is 409), credits charged in the same statement that writes
 * the order. Upload slots are registered with the uploads service after the commit (idempotently, on
 * every replay too), so no lock or connection is held while another service answers; the client gets its
 * upload URLs only once the uploads service knows them. When that call never happens or fails (orders killed,
 * the call timed out) and the client does not repeat its request, the sweep of `RegisterMissingSlotsUseCase` finds
 * the pending order without slots some seconds later and registers them, so its URL files are fetched and its next
 * read has upload URLs; the common case pays nothing for it.
 */
@Injectable()
export class OrderCreationService {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly erased: ErasedScopesRepository,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async execute(spec: NewOrder): Promise<CreatedOrder> {
    // Spec 9.4: the gateway answers 410 first; this keeps the rule when orders is called directly.
    if (spec.apiVersion === 'v2' && isV2Retired(this.clock.now())) {
      throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET);
    }
    const order = await this.createOrReplay(spec);
    // The RPC's span (and the gateway's, through the trace) is then searchable by the order (issue 33).
    annotateActiveSpan({ orderId: order.id, orderType: spec.type, accountId: spec.caller.accountId });
    return { order, uploadUrls: await this.uploads.registerSlots(order, this.clock.now()) };
  }

  /**
   * The order of this idempotency key, or a new one. The order is written first, in one statement with its
   * idempotency record (no transaction, no lookup before: a new key is the common case, and its creation is
   * then one round trip). When the statement fails, the record is looked for: a request with a known key
   * replays its order (or answers 409 to another body), whatever stopped the new one (the record's primary
   * key, or a charge the balance cannot pay). Two requests with the same new key both try; the primary key
   * lets the first commit and fails the second's statement whole, which then finds the first's record.
   */
  private async createOrReplay(spec: NewOrder): Promise<Order> {
    const scope: IdempotencyScope = { accountId: spec.caller.accountId, mode: spec.caller.mode, operation: spec.operation, idempotencyKey: spec.idempotencyKey };
    const hash = requestHash(spec.request);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.transactions.statementByStatement((db) => this.create(db, spec, scope, hash));
      } catch (error) {
        // When the lookup fails as well (the database is gone), the write's own error is the answer.
        const existing = await this.transactions.statementByStatement((db) => this.idempotency.find(db, scope)).catch(() => null);
        if (existing) {
          return this.replay(spec, existing, hash);
        }
        // A key taken by a record that is gone again (a bound against a bug, not a case that happens): try anew.
        if (!(error instanceof IdempotencyKeyTakenError) || attempt >= 3) {
          throw error;
        }
      }
    }
  }

  private async replay(spec: NewOrder, existing: { requestHash: string; orderId: string }, hash: string): Promise<Order> {
    if (spec.conflictOnOtherBody !== false && existing.requestHash !== hash) {
      throw new DomainException(ErrorCode.WATERMARK_V2_CONFLICT, 'idempotency key reused with another body');
    }
    const replayed = await this.orders.findOwned(existing.orderId, spec.caller.accountId, spec.caller.mode);
    if (!replayed) {
      throw new Error(`idempotency record points at missing order ${existing.orderId}`);
    }
    return replayed;
  }

  private async create(tx: Transaction, spec: NewOrder, scope: IdempotencyScope, hash: string): Promise<Order> {
    const { caller } = spec;
    const now = this.clock.now();
    // Test orders cost nothing, so a day's quota bounds what they leave (rows, reports, webhook deliveries). Refused
    // here, inside the attempt, so that a replay of an order already made still finds it (the catch above).
    if (caller.mode === 'test') {
      // A key the gateway authenticated just before its account's erasure: a test order costs nothing, so no
      // missing balance refuses it as it refuses a live one; it would be a row of an erased account.
      if (await this.erased.isErased(tx, caller.accountId)) {
        throw new DomainException(ErrorCode.AUTH_NOT_AUTHENTICATED, 'the account was erased');
      }
      const counted = await this.orders.countCreatedSince(tx, caller.accountId, 'test', new Date(now.getTime() - DAY_MS));
      if (counted.count >= this.config.testOrdersPerDay) {
        // Capacity comes back when the oldest counted order turns 24 hours old: `Retry-After`.
        const backInMs = (counted.oldest?.getTime() ?? now.getTime()) + DAY_MS - now.getTime();
        throw new DomainException(ErrorCode.RATE_LIMIT_EXCEEDED, `over ${this.config.testOrdersPerDay} test orders in 24 hours`, Math.max(1, Math.ceil(backInMs / 1000)));
      }
    }
    const order = await this.orders.newOrder({
      order: {
        accountId: caller.accountId,
        mode: caller.mode,
        type: spec.type,
        apiVersion: spec.apiVersion ?? 'v3',
        creditsCharged: caller.mode === 'live' ? spec.credits : 0,
        options: spec.options ?? null,
        expiresAt: new Date(now.getTime() + this.config.retentionMs),
        // The service clock, not the database's: the upload window, expiry and v2 stats all read it.
        createdAt: now,
      },
      files: spec.files,
      outputs: spec.outputs ?? (() => []),
    });
    const events = [...order.created(`${spec.operation} order`), ...(spec.afterCreation?.(order, now) ?? [])];
    // The order, its files and outputs, the charge, the events and the idempotency record: one statement.
    await this.orders.insert(tx, order, events, (batch) => this.idempotency.addInsert(batch, tx, scope, hash, order.id));
    return order;
  }
}
