import { AntiAiOrderCreatedView, CreateAntiAiOrderCommand } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../../orders.config';
import { OrderCreationService } from '../../orders/order-creation.service';
import { toAntiAiCreatedView } from '../../v2/v2-view.mapper';
import { antiAiOrderRules } from './anti-ai-order.rules';

/**
 * The standard anti-AI endpoint, `POST /api/v2/orders/anti-ai` (docs/api-decisions.md): files by upload
 * slot or `originalFileUrl`; processing starts once every file is in, as for embed.
 */
@Injectable()
export class CreateAntiAiOrderUseCase {
  constructor(
    private readonly creation: OrderCreationService,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  async execute({ caller, request }: CreateAntiAiOrderCommand): Promise<AntiAiOrderCreatedView> {
    const created = await this.creation.execute({
      ...antiAiOrderRules({
        files: request.files,
        orderName: request.orderName,
        options: request.options,
        zeroCopy: request.mode?.zeroCopy,
        outputTargets: request.mode?.outputTargets,
      }, this.config.antiAi.allowedTargetIps),
      caller,
      operation: 'anti-ai',
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return toAntiAiCreatedView(created);
  }
}
