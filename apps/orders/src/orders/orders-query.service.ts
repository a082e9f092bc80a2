import { Clock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { toWatermarkOrderView } from './order-view.mapper';
import { OrdersRepository } from './orders.repository';
import { UploadsClient } from './uploads.client';

/** The read model of `GET /api/v3/orders/{orderId}`: only the caller's orders of the key's mode. */
@Injectable()
export class OrdersQueryService {
  constructor(
    private readonly repository: OrdersRepository,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  async get(caller: CallerContext, orderId: string): Promise<WatermarkOrderView> {
    const aggregate = await this.repository.findOwned(orderId, caller.accountId, caller.mode);
    if (!aggregate) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `order ${orderId} not found for the caller`);
    }
    return toWatermarkOrderView(aggregate, await this.uploads.urlsFor(aggregate, this.clock.now()));
  }
}
