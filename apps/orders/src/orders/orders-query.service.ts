import { Clock } from '@cp/clock';
import { BatchResults, CallerContext, DomainException, GetOrderQuery, WatermarkOrderView } from '@cp/contracts';
import { ANSWER_ALONE, answerEach } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from './object-urls.service';
import { OrderAccessService } from './order-access.service';
import { UploadsClient } from './uploads.client';

/**
 * Bytes of one `orders.getMany` reply the views may take, half of NATS's default 1 MiB payload: an order beyond it
 * (and not the first) is answered `alone`, and the gateway asks for it with `orders.get`.
 */
export const ORDER_READS_REPLY_BYTES = 512 * 1024;

/** A generous bound of an order's view in bytes: 3 bytes per UTF-16 unit of its texts, room for each upload URL. */
function viewBytesBound(order: Order): number {
  const files = order.files.reduce((sum, file) => sum + 1024 + 3 * file.fileName.length, 0);
  const outputs = order.outputs.reduce((sum, output) => sum + 256 + 3 * output.watermarkText.length, 0);
  return 2048 + files + outputs;
}

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
    let bytes = 0;
    return answerEach(orders, (order, index) => {
      if (order instanceof DomainException) {
        return Promise.reject(order);
      }
      bytes += viewBytesBound(order);
      return index > 0 && bytes > ORDER_READS_REPLY_BYTES ? Promise.resolve(ANSWER_ALONE) : this.view(order);
    });
  }

  private async view(order: Order): Promise<WatermarkOrderView> {
    const type = this.types.of(order);
    return type.v3View(order, await this.uploads.urlsFor(order, this.clock.now()), await this.urls.for(order, type.linkedObjects(order)));
  }
}
