import { StoredObjectRef } from '@cp/contracts';
import { ObjectStorage, resultUrlThroughGateway } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';

/**
 * Download URLs of result files: presigned storage URLs, or for types whose results carry the AI-training
 * opt-out headers (anti-AI) the same presigned read relayed by the gateway's results route.
 */
@Injectable()
export class ResultUrlsService {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly types: OrderTypeRegistry,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  async url(order: Order, target: StoredObjectRef, seconds: number): Promise<string> {
    const presigned = await this.storage.presignGet(target.bucket, target.key, seconds, target.fileName);
    return this.types.of(order).optOutHeaders ? resultUrlThroughGateway(presigned, this.config.publicBaseUrl) : presigned;
  }
}
