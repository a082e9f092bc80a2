import { CreateV2ExtractOrderCommand, V2ExtractOrderCreatedView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreationService } from '../../orders/order-creation.service';
import { toV2ExtractCreatedView } from '../../v2/v2-view.mapper';
import { v2ExtractOrderRules } from './extract-order.rules';

/** Spec 4.10 (deprecated, retired 2026-10-09). */
@Injectable()
export class CreateV2ExtractOrderUseCase {
  constructor(private readonly creation: OrderCreationService) {}

  async execute({ caller, request }: CreateV2ExtractOrderCommand): Promise<V2ExtractOrderCreatedView> {
    const created = await this.creation.execute({
      ...v2ExtractOrderRules(request),
      caller,
      apiVersion: 'v2',
      operation: 'v2-wtr-extract',
      conflictOnOtherBody: false,
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return toV2ExtractCreatedView(created);
  }
}
