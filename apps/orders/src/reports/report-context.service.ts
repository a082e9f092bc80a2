import { Clock } from '@cp/clock';
import { ReportContextQuery, ReportContextView } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { orderNameOf } from '../domain/order';
import { inputRef } from '../order-types/order-outputs';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { OrderAccessService } from '../orders/order-access.service';

/** Everything the reports service needs about one of the caller's orders. */
@Injectable()
export class ReportContextService {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly access: OrderAccessService,
    private readonly types: OrderTypeRegistry,
    private readonly clock: Clock,
  ) {}

  async get(query: ReportContextQuery): Promise<ReportContextView> {
    const order = await this.access.owned(query.caller, query.orderId);
    const { state, files } = order;
    const inputs = files.map((file) => ({
      role: file.role,
      size: file.size === null ? null : Number(file.size),
      ...inputRef(order, file, this.config.storage.buckets.inputs),
    }));
    return {
      orderId: state.id,
      orderName: orderNameOf(state),
      orderType: state.type,
      apiVersion: state.apiVersion,
      mode: state.mode,
      status: state.status,
      expired: order.isExpired(this.clock.now()),
      createdAt: state.createdAt.toISOString(),
      completedAt: state.completedAt?.toISOString() ?? null,
      expiresAt: state.expiresAt.toISOString(),
      // The detection fields are the type's to fill (`reportContext`); none for a type without a detection.
      result: null,
      confidence: null,
      method: null,
      evidence: null,
      detectionStatus: null,
      files: inputs,
      ...this.types.of(order).reportContext?.(order, inputs),
    };
  }
}
