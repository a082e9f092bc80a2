import { AiDetectionConfirmView, AiDetectionOrderCreatedView, ConfirmAiDetectionOrderCommand, CreateAiDetectionOrderCommand, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { ConfirmAiDetectionOrderUseCase } from './confirm-ai-detection-order.use-case';
import { CreateAiDetectionOrderUseCase } from './create-ai-detection-order.use-case';

/** Creation and confirmation of AI detection orders. */
@RpcHandlers()
@Controller()
export class AiDetectionController {
  constructor(
    private readonly create: CreateAiDetectionOrderUseCase,
    private readonly confirmOrder: ConfirmAiDetectionOrderUseCase,
  ) {}

  @RpcHandler(Rpcs.ordersCreateAiDetection)
  createOrder(command: CreateAiDetectionOrderCommand): Promise<AiDetectionOrderCreatedView> {
    return this.create.execute(command);
  }

  @RpcHandler(Rpcs.ordersConfirmAiDetection)
  confirm(command: ConfirmAiDetectionOrderCommand): Promise<AiDetectionConfirmView> {
    return this.confirmOrder.execute(command);
  }
}
