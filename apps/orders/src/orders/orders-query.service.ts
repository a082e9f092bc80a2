import { Clock } from '@cp/clock';
import { BatchResults, CallerContext, DomainException, GetOrderQuery, WatermarkOrderView } from '@cp/contracts';
import { answerEach } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
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
    return this.view(await this.access.owned(caller, orderId));
  }

  /** Many reads in one statement (`orders.getMany`), each answered as `get` answers it. */
  async getMany(reads: GetOrderQuery[]): Promise<BatchResults<WatermarkOrderView>> {
    const orders = await this.access.ownedMany(reads);
    return answerEach(orders, (order) => (order instanceof DomainException ? Promise.reject(order) : this.view(order)));
  }

  private async view(order: Order): Promise<WatermarkOrderView> {
    const type = this.types.of(order);
    return type.v3View(order, await this.uploads.urlsFor(order, this.clock.now()), await this.urls.for(order, type.linkedObjects(order)));
  }
}
