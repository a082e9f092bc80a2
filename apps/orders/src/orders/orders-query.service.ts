import { CallerContext, DomainException, ErrorCode, WatermarkOrderView } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrderEntity } from './order.entity';

/** The read model of `GET /api/v3/orders/{orderId}`: only the caller's orders of the key's mode. */
@Injectable()
export class OrdersQueryService {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async get(caller: CallerContext, orderId: string): Promise<WatermarkOrderView> {
    const order = await this.dataSource
      .getRepository(OrderEntity)
      .findOneBy({ id: orderId, accountId: caller.accountId, mode: caller.mode });
    if (!order) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `order ${orderId} not found for the caller`);
    }
    return {
      orderId: order.id,
      status: order.status,
      processingDelayed: order.processingDelayed,
      expiresAt: order.expiresAt.toISOString(),
      files: [],
      outputs: [],
      result: null,
      reports: [],
    };
  }
}
