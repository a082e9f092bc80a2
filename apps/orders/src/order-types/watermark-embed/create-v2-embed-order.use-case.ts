import { CreateV2EmbedOrderCommand, V2EmbedOrderCreatedView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreationService } from '../../orders/order-creation.service';
import { toV2EmbedCreatedView } from '../../v2/v2-view.mapper';
import { embedOrderRules } from './embed-order.rules';

/** Spec 4.9 (deprecated, retired 2026-10-09): same order model as v3, v2 marks, v2 response shape. */
@Injectable()
export class CreateV2EmbedOrderUseCase {
  constructor(private readonly creation: OrderCreationService) {}

  async execute({ caller, request }: CreateV2EmbedOrderCommand): Promise<V2EmbedOrderCreatedView> {
    const created = await this.creation.execute({
      ...embedOrderRules(request),
      caller,
      apiVersion: 'v2',
      operation: 'v2-wtr-embed',
      conflictOnOtherBody: false,
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return toV2EmbedCreatedView(created);
  }
}
