import { CreateExtractOrderCommand, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreationService } from '../../orders/order-creation.service';
import { extractOrderRules } from './extract-order.rules';
import { WatermarkExtractOrderType } from './watermark-extract.order-type';

/** Spec 4.2 `POST /api/v3/orders/wtr-extract`. */
@Injectable()
export class CreateExtractOrderUseCase {
  constructor(
    private readonly creation: OrderCreationService,
    private readonly extract: WatermarkExtractOrderType,
  ) {}

  async execute({ caller, request }: CreateExtractOrderCommand): Promise<WatermarkOrderView> {
    const { order, uploadUrls } = await this.creation.execute({
      ...extractOrderRules(request),
      caller,
      operation: 'wtr-extract',
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return this.extract.v3View(order, uploadUrls);
  }
}
