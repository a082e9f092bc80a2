import { AiDetectionOrderCreatedView, CreateAiDetectionOrderCommand } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreationService } from '../../orders/order-creation.service';
import { toV2CreatedFiles } from '../../v2/v2-view.mapper';
import { aiDetectionOrderRules } from './ai-detection-order.rules';

/** `POST /api/v2/orders/ai-detection` (docs/api-decisions.md): files by upload or URL; starts on confirm. */
@Injectable()
export class CreateAiDetectionOrderUseCase {
  constructor(private readonly creation: OrderCreationService) {}

  async execute({ caller, request }: CreateAiDetectionOrderCommand): Promise<AiDetectionOrderCreatedView> {
    const created = await this.creation.execute({
      ...aiDetectionOrderRules(request),
      caller,
      operation: 'ai-detection',
      idempotencyKey: request.idempotencyKey,
      request,
    });
    return { orderId: created.order.id, status: created.order.status, files: toV2CreatedFiles(created) };
  }
}
