import { Clock } from '@cp/clock';
import { CreateEmbedOrderCommand, DomainException, ErrorCode, ObjectKeys, WatermarkOrderView } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { IdempotencyRecordEntity } from './idempotency-record.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderLifecycle } from './order-lifecycle.service';
import { OrderOutputEntity } from './order-output.entity';
import { toWatermarkOrderView } from './order-view.mapper';
import { OrderEntity } from './order.entity';
import { OrdersRepository } from './orders.repository';
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

/**
 * Spec 4.1: one order, one output per watermark text, credits charged in the same transaction,
 * idempotent per account and key (an advisory lock serialises concurrent identical requests).
 */
@Injectable()
export class CreateEmbedOrderUseCase {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly repository: OrdersRepository,
    private readonly ledger: CreditLedgerRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async execute({ caller, request }: CreateEmbedOrderCommand): Promise<WatermarkOrderView> {
    const hash = requestHash(request);
    const now = this.clock.now();
    return this.dataSource.transaction(async (manager) => {
      const idempotency = { accountId: caller.accountId, mode: caller.mode, operation: 'wtr-embed', idempotencyKey: request.idempotencyKey };
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [JSON.stringify(idempotency)]);
      const existing = await manager.findOneBy(IdempotencyRecordEntity, idempotency);
      if (existing) {
        if (existing.requestHash !== hash) {
          throw new DomainException(ErrorCode.WATERMARK_V2_CONFLICT, 'idempotency key reused with another body');
        }
        const aggregate = await this.repository.lock(manager, existing.orderId);
        if (!aggregate) {
          throw new Error(`idempotency record points at missing order ${existing.orderId}`);
        }
        return toWatermarkOrderView(aggregate, await this.uploads.urlsFor(aggregate, now));
      }

      const outputCount = request.files.reduce((sum, file) => sum + file.watermarks.length, 0);
      const order = await manager.save(
        manager.create(OrderEntity, {
          accountId: caller.accountId,
          mode: caller.mode,
          type: 'watermarkEmbed',
          apiVersion: 'v3',
          status: 'pending',
          processingDelayed: false,
          creditsCharged: caller.mode === 'live' ? outputCount : 0,
          expiresAt: new Date(now.getTime() + this.config.retentionMs),
        }),
      );
      const files = request.files.map((file, position) =>
        manager.create(OrderFileEntity, {
          orderId: order.id,
          position,
          role: 'input',
          fileName: file.fileName,
          sourceUrl: file.originalFileUrl ?? null,
          mediaKind: /\.pdf$/i.test(file.fileName) ? 'pdf' : 'image',
          status: 'awaiting_upload',
          size: null,
        }),
      );
      await manager.save(files);
      const fileIds = files.map((file) => file.id);
      const outputs = request.files.flatMap((file, position) =>
        file.watermarks.map((watermark, outputIndex) =>
          manager.create(OrderOutputEntity, {
            fileId: `${fileIds[position]}-${outputIndex + 1}`,
            orderId: order.id,
            inputFileId: fileIds[position],
            inputPosition: position,
            outputIndex,
            watermarkText: watermark.text,
            status: 'pending',
            mediaKind: files[position].mediaKind,
            objectKey: null,
            failureCode: null,
          }),
        ),
      );
      await manager.save(outputs);
      if (order.creditsCharged > 0) {
        await this.ledger.apply(manager, caller.accountId, -order.creditsCharged, `charge:${order.id}`, 'watermark embed order');
      }
      await manager.insert(IdempotencyRecordEntity, { ...idempotency, requestHash: hash, orderId: order.id });
      await this.lifecycle.created(manager, order);
      // Slots are registered before commit: a client never holds an upload URL the uploads service does not know.
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
      return toWatermarkOrderView({ order, files, outputs }, urls);
    });
  }
}
