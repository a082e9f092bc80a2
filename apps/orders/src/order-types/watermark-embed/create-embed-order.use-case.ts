import { CreateEmbedOrderCommand, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreationService } from '../../orders/order-creation.service';
import { embedOrderRules } from './embed-order.rules';
import { WatermarkEmbedOrderType } from './watermark-embed.order-type';

/** Spec 4.1 `POST /api/v3/orders/wtr-embed`. */
@Injectable()
export class CreateEmbedOrderUseCase {
  constructor(
    private readonly creation: OrderCreationService,
    private readonly embed: WatermarkEmbedOrderType,
  ) {}

  async execute({ caller, request }: CreateEmbedOrderCommand): Promise<WatermarkOrderView> {
    const { order, uploadUrls } = await this.creation.execute({
      ...embedOrderRules(request),
      caller,
      operation: 'wtr-embed',
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return this.embed.v3View(order, uploadUrls);
  }
}
