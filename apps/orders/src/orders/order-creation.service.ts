import { Clock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, ObjectKeys, WatermarkOrderView } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderLifecycle } from './order-lifecycle.service';
import { OrderOutputEntity } from './order-output.entity';
import { toWatermarkOrderView } from './order-view.mapper';
import { ApiVersion, OrderEntity, OrderType } from './order.entity';
import { OrderAggregate, OrdersRepository } from './orders.repository';
import { UploadsClient } from './uploads.client';

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

export interface NewOrder {
  caller: CallerContext;
  type: OrderType;
  /** The creation endpoint (idempotency keys are scoped per endpoint). */
  operation: string;
  idempotencyKey: string;
  request: object;
  credits: number;
  files: Array<Pick<OrderFileEntity, 'role' | 'fileName' | 'sourceUrl' | 'mediaKind'>>;
  /** Outputs of the new order, made once the file ids are known. */
  outputs: (files: OrderFileEntity[]) => Array<Omit<OrderOutputEntity, 'orderId'>>;
  /** Default `v3`. */
  apiVersion?: ApiVersion;
  /**
   * v3: the same key with another body is 409. v2 (spec 5.6): the same key returns the original order
   * whatever the body.
   */
  conflictOnOtherBody?: boolean;
}

/** A created (or replayed) order with the upload URLs of its files still waiting for an upload. */
export interface CreatedOrder {
  aggregate: OrderAggregate;
  uploadUrls: Record<string, string>;
}

/**
 * What every order creation shares: idempotency per account and key (an advisory lock serialises
 * concurrent identical requests; another body is 409), credits charged in the same transaction, upload
 * slots registered before commit (a client never holds an upload URL the uploads service does not know).
 */
@Injectable()
export class OrderCreation {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly repository: OrdersRepository,
    private readonly ledger: CreditLedgerRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async create(spec: NewOrder): Promise<WatermarkOrderView> {
    const created = await this.createOrder(spec);
    return toWatermarkOrderView(created.aggregate, created.uploadUrls);
  }

  async createOrder(spec: NewOrder): Promise<CreatedOrder> {
    const { caller } = spec;
    const hash = requestHash(spec.request);
    const now = this.clock.now();
    return this.dataSource.transaction(async (manager) => {
      const idempotency = { accountId: caller.accountId, mode: caller.mode, operation: spec.operation, idempotencyKey: spec.idempotencyKey };
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [JSON.stringify(idempotency)]);
      const existing = await manager.findOneBy(IdempotencyRecordEntity, idempotency);
      if (existing) {
        return this.replay(manager, existing, spec.conflictOnOtherBody === false || existing.requestHash === hash, now);
      }
      const order = await manager.save(
        manager.create(OrderEntity, {
          accountId: caller.accountId,
          mode: caller.mode,
          type: spec.type,
          apiVersion: spec.apiVersion ?? 'v3',
          status: 'pending',
          processingDelayed: false,
          creditsCharged: caller.mode === 'live' ? spec.credits : 0,
          expiresAt: new Date(now.getTime() + this.config.retentionMs),
          // The service clock, not the database's: the upload window, expiry and v2 stats all read it.
          createdAt: now,
        }),
      );
      const files = await manager.save(
        spec.files.map((file, position) => manager.create(OrderFileEntity, { ...file, orderId: order.id, position, status: 'awaiting_upload', size: null })),
      );
      const outputs = await manager.save(spec.outputs(files).map((output) => manager.create(OrderOutputEntity, { ...output, orderId: order.id })));
      if (order.creditsCharged > 0) {
        await this.ledger.apply(manager, caller.accountId, -order.creditsCharged, `charge:${order.id}`, `${spec.operation} order`);
      }
      await manager.insert(IdempotencyRecordEntity, { ...idempotency, requestHash: hash, orderId: order.id });
      await this.lifecycle.created(manager, order);
      const { urls } = await this.uploads.registerSlots({
        orderId: order.id,
        accountId: caller.accountId,
        mode: caller.mode,
        files: files.map((file) => ({
          fileId: file.id,
          fileName: file.fileName,
          objectKey: ObjectKeys.input(caller.accountId, order.id, file.id, file.fileName),
          ...(file.sourceUrl ? { sourceUrl: file.sourceUrl } : {}),
        })),
      });
      return { aggregate: { order, files, outputs, reports: [] }, uploadUrls: urls };
    });
  }

  private async replay(manager: EntityManager, existing: IdempotencyRecordEntity, sameRequest: boolean, now: Date): Promise<CreatedOrder> {
    if (!sameRequest) {
      throw new DomainException(ErrorCode.WATERMARK_V2_CONFLICT, 'idempotency key reused with another body');
    }
    const aggregate = await this.repository.lock(manager, existing.orderId);
    if (!aggregate) {
      throw new Error(`idempotency record points at missing order ${existing.orderId}`);
    }
    return { aggregate, uploadUrls: await this.uploads.urlsFor(aggregate, now) };
  }
}
