import { AntiAiWithUrlsCreatedView, CreateAntiAiWithUrlsCommand } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { orderNameOf } from '../../domain/order';
import { ORDERS_CONFIG, OrdersConfig } from '../../orders.config';
import { OrderCreationService } from '../../orders/order-creation.service';
import { antiAiOrderRules } from './anti-ai-order.rules';

/**
 * Spec 4.14, the deprecated `POST /api/v2/orders/anti-ai/with-urls`: images by URL only, processing starts
 * at once (`inProgress` while the service fetches them), no upload URLs. The same key with another body is
 * 409, as on the standard endpoint.
 */
@Injectable()
export class CreateAntiAiWithUrlsOrderUseCase {
  constructor(
    private readonly creation: OrderCreationService,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
  ) {}

  async execute({ caller, request }: CreateAntiAiWithUrlsCommand): Promise<AntiAiWithUrlsCreatedView> {
    const { order } = await this.creation.execute({
      ...antiAiOrderRules({
        files: request.files.map((file) => ({ fileName: file.fileName, originalFileUrl: file.imageUrl })),
        orderName: request.orderName,
        options: request.options,
        zeroCopy: request.mode?.zeroCopy,
        outputTargets: request.outputTargets ?? request.mode?.outputTargets,
      }, this.config.antiAi.allowedTargetIps),
      caller,
      operation: 'anti-ai-with-urls',
      idempotencyKey: request.idempotencyKey,
      request,
      // Spec 3.1 "processing starts at once": `inProgress` at creation; the jobs go out once the files are fetched.
      afterCreation: (order, now) => order.startBeforeFiles(now),
    });
    return { orderName: orderNameOf(order.state), orderId: order.id, status: order.status };
  }
}
