import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, ObjectKeys, ReportContextQuery, ReportContextView } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { orderNameOf } from '../orders/order.entity';
import { OrdersRepository } from '../orders/orders.repository';

/** Everything the reports service needs about one of the caller's orders. */
@Injectable()
export class ReportContextService {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly repository: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  async get(query: ReportContextQuery): Promise<ReportContextView> {
    const aggregate = await this.repository.findOwned(query.orderId, query.caller.accountId, query.caller.mode);
    if (!aggregate) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const { order, files } = aggregate;
    return {
      orderId: order.id,
      orderName: orderNameOf(order),
      orderType: order.type,
      apiVersion: order.apiVersion,
      mode: order.mode,
      status: order.status,
      expired: order.status === 'expired' || order.expiresAt <= this.clock.now(),
      createdAt: order.createdAt.toISOString(),
      completedAt: order.completedAt?.toISOString() ?? null,
      expiresAt: order.expiresAt.toISOString(),
      result: order.result,
      confidence: order.resultDetails?.confidence ?? null,
      method: order.resultDetails?.method ?? null,
      detectionStatus: order.result?.detectionStatus ?? null,
      files: files.map((file) => ({
        role: file.role,
        fileName: file.fileName,
        size: file.size === null ? null : Number(file.size),
        bucket: this.config.storage.buckets.inputs,
        key: ObjectKeys.input(order.accountId, order.id, file.id, file.fileName),
      })),
    };
  }
}
