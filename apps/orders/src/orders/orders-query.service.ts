import { Clock } from '@cp/clock';
import { CallerContext, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from './object-urls.service';
import { OrderAccessService } from './order-access.service';
import { UploadsClient } from './uploads.client';

/** The read model of `GET /api/v3/orders/{orderId}`: only the caller's orders of the key's mode, in their type's view. */
@Injectable()
export class OrdersQueryService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly types: OrderTypeRegistry,
    private readonly uploads: UploadsClient,
    private readonly urls: ObjectUrlsService,
    private readonly clock: Clock,
  ) {}

  async get(caller: CallerContext, orderId: string): Promise<WatermarkOrderView> {
    const order = await this.access.owned(caller, orderId);
    const type = this.types.of(order);
    return type.v3View(order, await this.uploads.urlsFor(order, this.clock.now()), await this.urls.for(order, type.linkedObjects(order)));
  }
}
